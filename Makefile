# make run   - install into .venv, migrate, load the demo catalog if empty, serve web + worker
# make test  - install the test tools and run the whole suite
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
export PORT

.PHONY: run test install install-dev migrate seed bench procs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.run-installed: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-installed: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.run-installed

install: $(VENV)/.run-installed
install-dev: $(VENV)/.dev-installed

migrate: install
	$(BIN)/flask --app api db upgrade

seed: migrate
	$(BIN)/flask --app api catalog seed

run: seed
	WORKER_IN_PROCESS=$${WORKER_IN_PROCESS:-1} exec $(BIN)/gunicorn -c gunicorn.conf.py "api:create_app()"

test: install-dev
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Production-like processes from the Procfile (needs DATABASE_URL, REDIS_URL, SECRET_KEY).
procs: install-dev migrate
	$(BIN)/honcho start

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
