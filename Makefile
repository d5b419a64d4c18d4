# make run   - install into .venv, migrate, load the demo catalog if empty, serve web + worker
# make test  - install the test tools and run the whole suite
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
export PORT

.PHONY: run test lint install install-dev migrate seed bench procs procs-env procs-ctl clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.run-installed: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

# A real ad platform's SDK (requirements-ads.txt) joins the run environment only when AD_PLATFORM
# (the environment's, else .env's, as config.py reads it) is meta or google.
AD_PLATFORM ?= $(shell sed -n 's/^[[:space:]]*AD_PLATFORM[[:space:]]*=[[:space:]"'"'"']*\([a-z]*\).*/\1/p' .env 2>/dev/null | tail -n 1)
$(VENV)/.ads-installed: requirements-ads.txt $(VENV)/.run-installed
	$(BIN)/python -m pip install --quiet -r requirements-ads.txt
	touch $@

$(VENV)/.dev-installed: requirements.txt requirements-dev.txt requirements-ads.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.run-installed $(VENV)/.ads-installed

install: $(VENV)/.run-installed $(if $(filter meta google,$(AD_PLATFORM)),$(VENV)/.ads-installed)
install-dev: $(VENV)/.dev-installed

migrate: install
	$(BIN)/flask --app api db upgrade

seed: migrate
	$(BIN)/flask --app api catalog seed

run: seed
	WORKER_IN_PROCESS=$${WORKER_IN_PROCESS:-1} exec $(BIN)/gunicorn -c gunicorn.conf.py "api:create_app()"

# The suite runs in TEST_WORKERS processes (pytest-xdist; 0 runs it in this one), each on a
# database and Redis database of its own (tests/conftest.py). Tests are handed out one by one
# (--dist load): the file and group modes key tests by node id, and schemathesis' cases of
# tests/test_openapi.py share one, so all but one of them would silently never run; and with
# pytest 9.2 --dist loadgroup ignores its groups (pytest-xdist issue 1386).
TEST_WORKERS ?= 2
test: install-dev
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist load $(PYTEST_ARGS)

# Lint and import order (pyproject.toml); `$(BIN)/ruff check --fix .` mends what it can.
lint: install-dev
	$(BIN)/ruff check .

# The production processes under supervisord (deploy/supervisord.conf), in the foreground: one
# web (gunicorn), WORKER_PROCESSES workers, one clock, each restarted when it exits; their JSON
# lines on stdout, supervisord's own log and socket in PROCS_RUN_DIR. Needs DATABASE_URL,
# REDIS_URL and SECRET_KEY (or .env). It migrates and, when the catalog is empty, loads
# CATALOG_PATH first (as make run does), so a fresh deploy serves founders. Ctrl-C or SIGTERM
# stops them all (workers drain).
# The front (nginx, deploy/front.conf) serves HOST:PORT; gunicorn listens on 127.0.0.1:WEB_PORT.
# `make procs-ctl` asks the running supervisord (CTL="restart worker:*", "stop web", ...).
# For development, honcho runs the Procfile: .venv/bin/honcho start [-c worker=2].
PROCS_RUN_DIR ?= $(CURDIR)/var/run
WORKER_PROCESSES ?= 2
WEB_PORT ?= 8001
CTL ?= status
# The production topology needs Redis: with the in-process broker a worker process would
# consume a queue no other process can send to.
procs-env:
	@test -n "$$REDIS_URL" || { echo "make procs: set REDIS_URL (and DATABASE_URL for PostgreSQL); make run serves everything in one process without them" >&2; exit 2; }
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || { echo "make procs: install nginx (Debian: apt-get install nginx), the front it serves through" >&2; exit 2; }

procs: procs-env seed
	mkdir -p $(PROCS_RUN_DIR)
	PROCS_RUN_DIR=$(PROCS_RUN_DIR) WORKER_PROCESSES=$(WORKER_PROCESSES) WEB_PORT=$(WEB_PORT) exec $(BIN)/supervisord -c deploy/supervisord.conf

procs-ctl: install
	PROCS_RUN_DIR=$(PROCS_RUN_DIR) WORKER_PROCESSES=$(WORKER_PROCESSES) WEB_PORT=$(WEB_PORT) $(BIN)/supervisorctl -c deploy/supervisord.conf $(CTL)

bench: install-dev migrate
	$(BIN)/python bench/compare.py --target-app "api:create_app()" --target-path /api/health -n 10000 --repeat 3

clean:
	rm -rf $(VENV) var

# POST /api/ask on a 100,000-product catalog in PostgreSQL (bench/README.md); not part of the tests.
# ASK_BENCH_DB must name a database with "bench" in it: its schema is dropped and rebuilt.
.PHONY: bench-ask
ASK_BENCH_DB ?= postgresql://postgres@127.0.0.1:5432/ff_ask_bench
bench-ask: install-dev
	$(BIN)/python bench/ask_bench.py $(ASK_BENCH_DB) $(ASK_BENCH_ARGS)

# First load of the browser app (GET /) in Debian's Chromium (bench/README.md); not part of the
# tests. It builds its own SQLite database in a temporary folder and serves it on a free port.
.PHONY: bench-app
bench-app: install-dev
	$(BIN)/python bench/app_load_bench.py $(APP_BENCH_ARGS)

# Storefront builds on 1 and 2 real `dramatiq` worker processes, and GET /store/<slug>/ against the
# bare route (bench/README.md); not part of the tests. STORE_BENCH_DB must name a database with
# "bench" in it (its schema is dropped and rebuilt); STORE_BENCH_REDIS is a Redis database it flushes.
.PHONY: bench-store
STORE_BENCH_DB ?= postgresql://postgres@127.0.0.1:5432/ff_store_bench
STORE_BENCH_REDIS ?= redis://127.0.0.1:6379/12
bench-store: install-dev
	$(BIN)/python bench/store_bench.py $(STORE_BENCH_DB) --redis-url $(STORE_BENCH_REDIS) $(STORE_BENCH_ARGS)

# Store editing: an offline POST /api/ai/edit end to end and POST /api/track (bench/README.md).
.PHONY: bench-edit
EDIT_BENCH_DB ?= postgresql://postgres@127.0.0.1:5432/ff_edit_bench
bench-edit: install-dev
	$(BIN)/python bench/edit_bench.py $(EDIT_BENCH_DB) $(EDIT_BENCH_ARGS)

# Customer orders: checkout -> sandbox hosted-page pay -> confirm round trips against gunicorn, with a
# revenue check, and GET /api/revenue at 1k and 100k paid orders (bench/README.md); not part of the tests.
# COMMERCE_BENCH_DB must name a database with "bench" in it (its schema is dropped and rebuilt);
# COMMERCE_BENCH_REDIS is a Redis database it flushes.
.PHONY: bench-commerce
COMMERCE_BENCH_DB ?= postgresql://postgres@127.0.0.1:5432/ff_commerce_bench
COMMERCE_BENCH_REDIS ?= redis://127.0.0.1:6379/14
bench-commerce: install-dev
	$(BIN)/python bench/commerce_bench.py $(COMMERCE_BENCH_DB) --redis-url $(COMMERCE_BENCH_REDIS) $(COMMERCE_BENCH_ARGS)

# Image uploads: the dearest POST /api/product requests the caps on decoded pixels accept, timed with their
# peak memory, each in a fresh process on a throwaway SQLite database (bench/README.md); not part of the tests.
.PHONY: bench-images
bench-images: install-dev
	$(BIN)/python bench/images_bench.py $(IMAGES_BENCH_ARGS)

# Faults under supervisord with more builds than the tests: kill -9 a worker, SIGTERM a worker,
# a stop past WORKER_SHUTDOWN_SECONDS, FLUSHALL on Redis (bench/README.md); not part of the tests.
# FAULTS_BENCH_DB must name a database with "bench" in it (dropped and made again per scenario);
# each scenario starts a Redis server of its own (Debian's redis-server) on a free port.
.PHONY: bench-faults
FAULTS_BENCH_DB ?= postgresql://postgres@127.0.0.1:5432/ff_faults_bench
bench-faults: install-dev
	$(BIN)/python bench/faults_bench.py $(FAULTS_BENCH_DB) $(FAULTS_BENCH_ARGS)

# Locust, headless, against the production processes under supervisord: founders' whole journey
# and store visitors; per-endpoint requests/s, p50/p95/p99, failures, and store builds per minute
# per worker process (bench/README.md, "Load (Locust)"); not part of the tests. LOAD_DB must name a
# database with "load" or "bench" in it (dropped and made again per case); LOAD_REDIS is a Redis
# database it flushes. LOAD_ARGS: --web N --workers N, --matrix (1/2 web x 1/2 workers), --users,
# --founders, --spawn-rate, --time (default 30 users, 10 of them founders, 90 s: under 3 minutes).
.PHONY: load
LOAD_DB ?= postgresql://postgres@127.0.0.1:5432/ff_load_bench
LOAD_REDIS ?= redis://127.0.0.1:6379/13
load: install-dev
	$(BIN)/python bench/load_run.py $(LOAD_DB) --redis-url $(LOAD_REDIS) $(LOAD_ARGS)

# The capacity run beside `make load` (bench/capacity.py, bench/README.md "Capacity"): founders
# through the whole journey (and their store visitors) arriving in steps on the supervised
# topology until a step's p99 passes 500 ms or a request fails; founders sustained, p50/p95/p99
# per endpoint and CPU per request (server and PostgreSQL) for 1 and 2 web x 1 and 2 worker
# processes; not part of the tests. CAPACITY_REF=<git ref> runs the same against that commit in a
# worktree, before and after in one table. CAPACITY_DB must name a database with "capacity" in it
# (dropped and made again per case); CAPACITY_REDIS and CAPACITY_REF_REDIS are Redis databases it
# flushes. CAPACITY_ARGS: --web, --workers, --start-founders, --step-founders, --step-seconds,
# --max-founders, --visitors-per-founder, --arrival-rate, --p99-ms, --json.
.PHONY: capacity
CAPACITY_DB ?= postgresql://postgres@127.0.0.1:5432/ff_capacity
CAPACITY_REDIS ?= redis://127.0.0.1:6379/3
CAPACITY_REF_REDIS ?= redis://127.0.0.1:6379/4
CAPACITY_REF ?=
capacity: install-dev
	$(BIN)/python bench/capacity.py --database-url $(CAPACITY_DB) --redis-url $(CAPACITY_REDIS) \
		--ref-redis-url $(CAPACITY_REF_REDIS) $(if $(CAPACITY_REF),--ref $(CAPACITY_REF)) $(CAPACITY_ARGS)

# The six hot paths (find, feed, the store poll, track, usage, dashboard) under gunicorn, each as a
# ratio to the bare route of the same run, with the founders' state prepared so each answers its
# normal 200 (bench/README.md, issue 28 part 5); not part of the tests. HOTPATHS_BENCH_DB must name
# a database with "bench" in it (its schema is dropped and rebuilt); HOTPATHS_BENCH_REDIS is a Redis
# database it flushes. HOTPATHS_BENCH_ARGS: --products, --history, -n, -c, --repeat, --routes, --json.
.PHONY: bench-hotpaths
HOTPATHS_BENCH_DB ?= postgresql://postgres@127.0.0.1:5432/ff_hotpaths_bench
HOTPATHS_BENCH_REDIS ?= redis://127.0.0.1:6379/6
bench-hotpaths: install-dev
	$(BIN)/python bench/hotpaths_bench.py $(HOTPATHS_BENCH_DB) --redis-url $(HOTPATHS_BENCH_REDIS) $(HOTPATHS_BENCH_ARGS)
