"""The production topology under supervisord, for the fault tests (tests/test_topology_faults.py)
and bench/faults_bench.py.

`Topology` runs deploy/supervisord.conf as `make procs` does (the front, web, WORKER_PROCESSES
workers, clock), in a run folder of its own, on a free port (the front's; gunicorn listens on
another, on loopback), with a PostgreSQL database it makes (named by the caller after
TEST_DATABASE_URL, so checkouts side by side never clash), migrated and seeded with the
project's own commands, and a Redis server of its own (tests/redis_server.py) that a scenario
may flush. Store builds are slow on purpose: AI_BACKEND=command runs a small
program that notes when it starts and ends (and for which worker process: its parent), sleeps
for the seconds a file says (changed while it runs) and prints a fixed store copy.

Founders are driven over HTTP, each with a cookie jar of its own: GET /api/find, POST /api/pass
{action: claim}, POST /api/store, then GET /api/store until it says built. What a scenario
checks afterwards is read from the database directly (job rows, store versions).

The scenarios (`kill_worker_mid_batch`, `stop_worker_during_builds`,
`stop_worker_past_its_shutdown_time`, `flush_redis_with_builds_queued`,
`restart_redis_with_builds_queued`, `cut_the_database_under_traffic`,
`stop_redis_under_traffic`) return their figures;
the tests assert on them and the benchmark prints them. For the database cut the processes
reach PostgreSQL through a proxy (`service_database_url`, tests/tcp_proxy.py) while the
test's own queries go straight to it.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import xmlrpc.client
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.helpers import wait_for as _wait_for  # noqa: E402
from tests.redis_server import RedisServer, free_port  # noqa: E402


def wait_for(predicate, timeout: float, what: str, every: float = 0.1):
    """tests.helpers.wait_for, taking any exception for "not yet": processes here start and stop."""
    return _wait_for(predicate, timeout, what, every=every, tolerate=(Exception,))

VENV_BIN = ROOT / ".venv" / "bin"
CONF = ROOT / "deploy" / "supervisord.conf"
DEMO = ROOT / "scripts" / "data" / "demo_catalog.jsonl"
BUILD = "store_build"  # services.store.builds.BUILD (read from the rows, never imported: no app here)
SECRET = "topology-secret-key-0123456789"
WEB_CONCURRENCY = 2  # gunicorn worker processes of the web

# A store copy that follows the store_copy schema and claims nothing the facts must back.
COPY = {
    "headline": "A good thing for your home",
    "subheadline": "Made to be used every day, and simple to look after.",
    "benefits": [{"title": "Everyday use", "text": "It is made to be picked up and used every day."},
                 {"title": "Easy care", "text": "Wipe it clean and put it back where it lives."},
                 {"title": "Help when you need it", "text": "Questions before or after you buy? Write to us."}],
    "faq": [{"question": "How do I clean it?", "answer": "Wipe it with a damp cloth and let it dry."},
            {"question": "Can I return it?", "answer": "Yes, unused items in their original condition."},
            {"question": "How do I reach you?", "answer": "Write to us through this store."}],
    "about": "We are a small shop that picks a few useful things and sells them with care.",
    "shipping": "Your order is packed and sent once your payment is confirmed.",
    "returns": "Returns are accepted on unused items in their original condition.",
    "guarantee": "If something is wrong with your order, write to us and we will put it right.",
    "seo_title": "A good thing for your home",
    "seo_description": "A useful thing for every day, sold by a small shop that answers its mail and takes returns.",
    "call_to_action": "Buy now",
}

# The model: notes its start and end (with its parent, the worker process that runs the
# job), sleeps as long as the sleep file says, prints the copy. One write per line, opened
# for appending, so lines of concurrent calls never mix.
MODEL = '''import json, os, sys, time
copy_path, sleep_path, log_path = sys.argv[1:4]
request = json.loads(sys.stdin.read() or "{}")
product = ((request.get("facts") or {}).get("product") or {}).get("product_id")
worker = os.getppid()
def note(event):
    fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (json.dumps({"event": event, "product": product, "worker": worker, "at": time.time()}) + "\\n").encode())
    os.close(fd)
note("start")
time.sleep(float(open(sleep_path).read()))
note("end")
print(open(copy_path).read())
'''


def recreate_database(url: str) -> None:
    import psycopg2

    parts = urlsplit(url)
    conn = psycopg2.connect(host=parts.hostname, port=parts.port or 5432, user=parts.username,
                            password=parts.password, dbname="postgres")
    conn.autocommit = True
    name = parts.path.lstrip("/")
    with conn.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        cur.execute(f'CREATE DATABASE "{name}"')
    conn.close()


def drop_database(url: str) -> None:
    import psycopg2

    parts = urlsplit(url)
    conn = psycopg2.connect(host=parts.hostname, port=parts.port or 5432, user=parts.username,
                            password=parts.password, dbname="postgres")
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{parts.path.lstrip("/")}" WITH (FORCE)')
    conn.close()


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie waiting for its parent to reap it does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pid: int, timeout: float = 120) -> float:
    """Waits until the process has exited; returns time.time() then."""
    wait_for(lambda: not alive(pid), timeout, f"process {pid} to exit", every=0.02)
    return time.time()


def utcnow() -> datetime:
    """Naive UTC, as the service writes its rows."""
    return datetime.now(UTC).replace(tzinfo=None)


class Topology:
    """supervisord with deploy/supervisord.conf, its database, its Redis, its run folder."""

    def __init__(self, workdir: Path, database_url: str, *, worker_processes: int = 2, worker_threads: int = 2,
                 build_seconds: float = 3.0, catalog_copies: int = 1, env: dict | None = None,
                 service_database_url: str | None = None, redis_keep: bool = False):
        self.dir = Path(workdir)
        self.run_dir = self.dir / "run"
        self.database_url = database_url
        # The URL the processes are given (a cuttable proxy's, tests/tcp_proxy.py); the test's
        # own queries always go straight to `database_url`, so they see through an outage.
        self.service_database_url = service_database_url or database_url
        self.worker_processes = worker_processes
        self.worker_threads = worker_threads
        self.catalog_copies = catalog_copies
        self.extra_env = dict(env or {})
        # The front (nginx, deploy/front.conf) serves `port`, as `make procs` serves PORT;
        # gunicorn listens behind it on `web_port`, on loopback only.
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.web_port = free_port()
        self.web_url = f"http://127.0.0.1:{self.web_port}"
        # redis_keep: a stop saves what Redis holds and the next start loads it (Redis away for
        # a while, then back as it was); else it comes back empty (the machine's Redis keeps
        # nothing on disk).
        self.redis = RedisServer(keep=redis_keep)
        self.process: subprocess.Popen | None = None
        self.sleep_file = self.dir / "model-sleep"
        self.calls_file = self.dir / "model-calls.jsonl"
        self.output_file = self.dir / "supervisord.out"
        self.build_seconds = build_seconds
        self._db = None

    # -- start and stop ---------------------------------------------------------------------

    def environment(self) -> dict:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("TEST_", "DATABASE_", "REDIS_", "WORKER_", "AI_", "JOB_", "HEARTBEAT_",
                                    "PROCS_", "SUPERVISOR_"))}
        model = self.dir / "model.py"
        env.update(
            DATABASE_URL=self.service_database_url, REDIS_URL=self.redis.url(0), SECRET_KEY=SECRET,
            BASE_URL=self.base_url, PORT=str(self.port), HOST="127.0.0.1", OUTBOX_DIR=str(self.dir / "outbox"),
            PROCS_RUN_DIR=str(self.run_dir), WORKER_PROCESSES=str(self.worker_processes), WEB_PORT=str(self.web_port),
            WORKER_THREADS=str(self.worker_threads), HEARTBEAT_SECONDS="1", WORKER_METRICS_PORT="0",
            WEB_CONCURRENCY=str(WEB_CONCURRENCY), LOG_LEVEL="INFO", PYTHONUNBUFFERED="1",
            AI_BACKEND="command",
            AI_COMMAND=f"{sys.executable} {model} {self.dir / 'copy.json'} {self.sleep_file} {self.calls_file}",
            CATALOG_PATH=str(self.dir / "catalog.jsonl"),
        )
        env.update(self.extra_env)
        return env

    def start(self, timeout: float = 120) -> Topology:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "model.py").write_text(MODEL)
        (self.dir / "copy.json").write_text(json.dumps(COPY))
        self.set_build_seconds(self.build_seconds)
        self._write_catalog()
        self.redis.start()
        recreate_database(self.database_url)
        env = self.environment()
        for command in (["db", "upgrade"], ["catalog", "seed"]):
            done = subprocess.run([str(VENV_BIN / "flask"), "--app", "api", *command], cwd=ROOT, env=env,
                                  capture_output=True, text=True, timeout=180)
            if done.returncode != 0:
                raise RuntimeError(f"flask {' '.join(command)} failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")
        with open(self.output_file, "w") as out:
            self.process = subprocess.Popen([str(VENV_BIN / "supervisord"), "-c", str(CONF)], cwd=ROOT, env=env,
                                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            names = {"front", "web", "clock", *self.worker_names()}
            wait_for(lambda: self.process.poll() is None and
                     {n for n, info in self.infos().items() if info["statename"] == "RUNNING"} >= names,
                     timeout, "every program RUNNING")
            # Through the front: its own 503 (gunicorn not up yet) has no `database` part.
            wait_for(lambda: "database" in self.get("/api/health").json(), timeout, "the web process")
            # Every web worker forked (the first may answer before the master forks the next).
            web_workers = int(self.environment()["WEB_CONCURRENCY"])
            wait_for(lambda: len(children(self.pids()["web"])) >= web_workers, timeout, "every web worker")
            wait_for(lambda: self.workers_alive() >= self.worker_processes, timeout, "every worker's first beat")
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self, timeout: float = 90) -> None:
        """SIGTERM to supervisord, which stops every program (workers drain) and exits."""
        children = []
        if self.process is not None and self.process.poll() is None:
            try:
                children = [info["pid"] for info in self.infos().values() if info["pid"]]
            except Exception:  # noqa: BLE001  (supervisord not answering: stop it anyway)
                pass
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                for pid in children:  # each program is its own process group
                    try:
                        os.killpg(pid, signal.SIGKILL)
                    except OSError:
                        pass
                self.process.kill()
                self.process.wait()
        if self._db is not None:
            self._db.close()
            self._db = None
        self.redis.close()

    def drop(self) -> None:
        drop_database(self.database_url)

    def __enter__(self) -> Topology:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _write_catalog(self) -> None:
        lines = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
        with open(self.dir / "catalog.jsonl", "w") as out:
            for copy in range(self.catalog_copies):
                for line in lines:
                    suffix = f"-c{copy}" if copy else ""
                    out.write(json.dumps(line | {"product_id": line["product_id"] + suffix}) + "\n")

    # -- supervisord --------------------------------------------------------------------------

    def worker_names(self) -> list[str]:
        return [f"worker_{n}" for n in range(1, self.worker_processes + 1)]

    def rpc(self):
        from supervisor.xmlrpc import SupervisorTransport

        transport = SupervisorTransport(None, None, f"unix://{self.run_dir / 'supervisor.sock'}")
        return xmlrpc.client.ServerProxy("http://127.0.0.1", transport=transport)

    def infos(self) -> dict[str, dict]:
        """supervisord's view of each program process, by name (web, clock, worker_1, ...)."""
        return {info["name"]: info for info in self.rpc().supervisor.getAllProcessInfo()}

    def pids(self) -> dict[str, int]:
        return {name: info["pid"] for name, info in self.infos().items()}

    def ctl(self, *args: str) -> subprocess.CompletedProcess:
        """supervisorctl -c deploy/supervisord.conf ARGS, as an operator runs it."""
        return subprocess.run([str(VENV_BIN / "supervisorctl"), "-c", str(CONF), *args], cwd=ROOT,
                              env=self.environment(), capture_output=True, text=True, timeout=60)

    def restarted(self, name: str, old_pid: int, timeout: float = 60) -> dict:
        """Waits until supervisord has started `name` again under a new pid (STARTING: spawned,
        RUNNING once up for startsecs); returns supervisord's info of it."""
        return wait_for(lambda: (info := self.infos()[name])["statename"] in ("STARTING", "RUNNING")
                        and info["pid"] and info["pid"] != old_pid and info, timeout, f"{name} to run again",
                        every=0.05)

    def output(self) -> str:
        return self.output_file.read_text(errors="replace")

    def exits(self) -> list[tuple[str, bool]]:
        """(program, expected) of every exit supervisord reported (deploy/supervisor_events.py)."""
        found = []
        for line in self.output().splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("logger") == "supervisord" and event.get("state") == "exited":
                found.append((event["program"], event["expected"]))
        return found

    # -- the slow model -----------------------------------------------------------------------

    def set_build_seconds(self, seconds: float) -> None:
        tmp = self.sleep_file.with_suffix(".tmp")
        tmp.write_text(str(seconds))
        tmp.replace(self.sleep_file)

    def ai_calls(self) -> list[dict]:
        if not self.calls_file.exists():
            return []
        return [json.loads(line) for line in self.calls_file.read_text().splitlines() if line.strip()]

    def calls_running(self, worker_pid: int) -> set[str]:
        """Products whose model call the worker process started and that has not ended."""
        started, ended = set(), set()
        for call in self.ai_calls():
            if call["worker"] == worker_pid:
                (started if call["event"] == "start" else ended).add(call["product"])
        return started - ended

    # -- the database and the web ---------------------------------------------------------------

    def sql(self, query: str, *args) -> list[tuple]:
        import psycopg2

        if self._db is None:
            self._db = psycopg2.connect(self.database_url)
            self._db.autocommit = True
        with self._db.cursor() as cur:
            cur.execute(query, args)
            return cur.fetchall()

    def workers_alive(self, within_seconds: float = 5) -> int:
        return self.sql("SELECT COUNT(*) FROM worker_beat WHERE seen_at > (now() AT TIME ZONE 'utc') - %s * interval '1 second'",
                        within_seconds)[0][0]

    def builds(self, product_ids) -> dict[str, dict]:
        """The store_build job rows of these products, by product id."""
        subjects = [f"store:{pid}" for pid in product_ids]
        rows = self.sql("SELECT subject, status, attempt, created_at, started_at, finished_at FROM job "
                        "WHERE kind = %s AND subject = ANY(%s)", BUILD, subjects)
        found: dict[str, dict] = {}
        for subject, status, attempt, created, started, finished in rows:
            found.setdefault(subject.split(":", 1)[1], []).append(
                {"status": status, "attempt": attempt, "created_at": created, "started_at": started,
                 "finished_at": finished})
        return found

    def versions(self, product_ids) -> dict[str, int]:
        rows = self.sql("SELECT product_id, COUNT(*) FROM store_version WHERE product_id = ANY(%s) GROUP BY product_id",
                        list(product_ids))
        return dict(rows)

    def get(self, path: str, **kwargs):
        import requests

        return requests.get(self.base_url + path, timeout=kwargs.pop("timeout", 5), **kwargs)

    def founders(self, count: int) -> list[Founder]:
        return [Founder(self.base_url).claim() for _ in range(count)]


class Founder:
    """One browser: a cookie jar of its own, a claimed product, its store."""

    def __init__(self, base_url: str):
        import requests

        self.base_url = base_url
        self.http = requests.Session()
        self.product_id: str | None = None
        self.job_id: str | None = None

    def claim(self) -> Founder:
        card = self.http.get(self.base_url + "/api/find", timeout=10).json()
        answer = self.http.post(self.base_url + "/api/pass", json={"action": "claim", "product_id": card.get("product_id")},
                                timeout=10).json()
        if answer.get("status") != "claimed":
            raise AssertionError(f"claim refused: {answer} (card {card})")
        self.product_id = card["product_id"]
        return self

    def build(self) -> Founder:
        answer = self.http.post(self.base_url + "/api/store", timeout=10).json()
        if answer.get("status") != "building":
            raise AssertionError(f"POST /api/store answered {answer}")
        self.job_id = answer.get("job_id")
        return self

    def store(self) -> dict:
        return self.http.get(self.base_url + "/api/store", timeout=10).json()


def wait_built(founders, timeout: float) -> float:
    """Polls GET /api/store of every founder until each says built; returns time.time() then."""
    pending = list(founders)
    deadline = time.monotonic() + timeout
    while pending:
        states = {f.product_id: f.store() for f in pending}
        failed = {pid: s for pid, s in states.items() if s.get("status") == "failed"}
        if failed:
            raise AssertionError(f"builds failed: {failed}")
        pending = [f for f in pending if states[f.product_id].get("status") != "built"]
        if not pending:
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"{len(pending)} stores not built after {timeout:.0f} s: "
                                 f"{ {f.product_id: states[f.product_id].get('status') for f in pending} }")
        time.sleep(0.25)
    return time.time()


class HealthWatch:
    """A thread asking GET /api/health every `every` seconds: counts the answers and the
    requests that got no answer at all (refused, reset, timed out)."""

    def __init__(self, base_url: str, every: float = 0.1):
        self.url = base_url + "/api/health"
        self.every = every
        self.answers = 0
        self.errors: list[str] = []
        self.statuses: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="health-watch", daemon=True)

    def _run(self) -> None:
        import requests

        session = requests.Session()
        while not self._stop.is_set():
            try:
                answer = session.get(self.url, timeout=5)
                self.answers += 1
                self.statuses[answer.status_code] = self.statuses.get(answer.status_code, 0) + 1
            except requests.RequestException as exc:
                self.errors.append(f"{type(exc).__name__}: {exc}")
            self._stop.wait(self.every)

    def __enter__(self) -> HealthWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


# -- the scenarios -------------------------------------------------------------------------------


def _wait_busy(topo: Topology, name: str, threads: int, timeout: float = 60) -> tuple[int, set[str]]:
    """Waits until worker `name` runs `threads` model calls at once; returns its pid and them."""
    pid = topo.pids()[name]
    running = wait_for(lambda: len(r := topo.calls_running(pid)) >= threads and r, timeout,
                       f"{name} (pid {pid}) to run {threads} builds")
    return pid, running


def _once(topo: Topology, founders) -> dict:
    """Every build finished once: its one job row done, one store version."""
    ids = [f.product_id for f in founders]
    rows = topo.builds(ids)
    versions = topo.versions(ids)
    return {"jobs": {pid: rows.get(pid) for pid in ids}, "versions": {pid: versions.get(pid, 0) for pid in ids},
            "all_done_once": all(len(rows.get(pid) or []) == 1 and rows[pid][0]["status"] == "done" for pid in ids)
            and all(versions.get(pid) == 1 for pid in ids)}


def _seconds_after(moment: datetime, then: datetime | None) -> float | None:
    return None if then is None else round((then - moment).total_seconds(), 2)


def _hit_a_worker_mid_batch(topo: Topology, sig: int, *, builds: int, timeout: float) -> dict:
    """What the worker scenarios share: `builds` founders post their builds; once the first
    worker runs one on each of its threads it gets `sig`; then waits for it to exit, for
    supervisord to start it again and for every store to be built. The figures name it
    `worker`; its builds that ran again (a second attempt) are `rerun`."""
    founders = topo.founders(builds)
    before = topo.pids()
    posted = time.time()
    for founder in founders:
        founder.build()
    victim = topo.worker_names()[0]
    pid, held = _wait_busy(topo, victim, topo.worker_threads)
    queued = topo.sql("SELECT COUNT(*) FROM job WHERE kind = %s AND status = 'queued'", BUILD)[0][0]
    hit_at, hit_wall = utcnow(), time.time()
    os.kill(pid, sig)
    exited_wall = wait_gone(pid)
    info = topo.restarted(victim, pid)
    restarted_wall = time.time()
    built_at = wait_built(founders, timeout)
    after = topo.pids()
    once = _once(topo, founders)
    rerun = {p: rows[0] for p, rows in once["jobs"].items() if rows and rows[0]["attempt"] > 1}
    return {
        "builds": builds, "worker": victim, "worker_pid": pid, "new_pid": info["pid"], "held": sorted(held),
        "queued_at_hit": queued, "hit_wall": hit_wall, "exited_wall": exited_wall,
        "exited_after_seconds": round(exited_wall - hit_wall, 2),
        "restarted_after_seconds": round(restarted_wall - hit_wall, 2),
        "pids_before": before, "pids_after": after,
        "unchanged": sorted(n for n in before if n != victim and before[n] == after[n]),
        "rerun": sorted(rerun),
        "rerun_started_after_seconds": {p: _seconds_after(hit_at, row["started_at"]) for p, row in rerun.items()},
        "attempts": sorted({rows[0]["attempt"] for rows in once["jobs"].values() if rows}),
        "all_built_after_hit_seconds": round(built_at - hit_wall, 2),
        "all_built_after_post_seconds": round(built_at - posted, 2),
        "exits": topo.exits(),
        **once,
    }


def kill_worker_mid_batch(topo: Topology, *, builds: int = 8, timeout: float = 120) -> dict:
    """kill -9 one worker process while it runs builds: only it restarts, the web answers
    throughout, every build finishes once, and the killed worker's builds run again."""
    with HealthWatch(topo.base_url) as health:
        figures = _hit_a_worker_mid_batch(topo, signal.SIGKILL, builds=builds, timeout=timeout)
    return {**figures, "health_answers": health.answers, "health_errors": len(health.errors),
            "health_error_samples": health.errors[:3], "health_statuses": health.statuses}


def stop_worker_during_builds(topo: Topology, *, builds: int = 8, timeout: float = 120) -> dict:
    """One SIGTERM to a worker running builds: they finish in that process (attempt 1), it
    exits, supervisord starts it again, and nothing waits for the reaper."""
    figures = _hit_a_worker_mid_batch(topo, signal.SIGTERM, builds=builds, timeout=timeout)
    pid, exited = figures["worker_pid"], figures["exited_wall"]
    ends = {call["product"]: call["at"] for call in topo.ai_calls() if call["event"] == "end" and call["worker"] == pid}
    return {**figures, "held_finished_in_process": sorted(p for p in figures["held"] if ends.get(p, exited) < exited),
            "second_signal_logged": "second stop signal" in topo.output()}


def stop_worker_past_its_shutdown_time(topo: Topology, *, builds: int = 4, timeout: float = 120) -> dict:
    """One SIGTERM to a worker whose builds outlast WORKER_SHUTDOWN_SECONDS: it exits after
    that time, and its unfinished builds run again at once (attempt 2), not after the lease."""
    return _hit_a_worker_mid_batch(topo, signal.SIGTERM, builds=builds, timeout=timeout)


def flush_redis_with_builds_queued(topo: Topology, *, builds: int = 12, timeout: float = 120) -> dict:
    """FLUSHALL on the topology's Redis while builds run and more wait in the queue: every
    build still finishes once."""
    import redis

    founders = topo.founders(builds)
    posted = time.time()
    for founder in founders:
        founder.build()
    client = redis.Redis.from_url(topo.redis.url(0))
    # Every thread busy, and the rest of the builds waiting in Redis.
    wait_for(lambda: sum(len(topo.calls_running(p)) for n, p in topo.pids().items() if n.startswith("worker_"))
             >= topo.worker_processes * topo.worker_threads, 60, "every worker thread busy")
    queued = topo.sql("SELECT COUNT(*) FROM job WHERE kind = %s AND status = 'queued'", BUILD)[0][0]
    flushed_wall = time.time()
    client.flushall()
    client.close()
    built_at = wait_built(founders, timeout)
    once = _once(topo, founders)
    finished = [rows[0]["finished_at"] for rows in once["jobs"].values() if rows]
    return {
        "builds": builds, "queued_at_flush": queued,
        "all_built_after_flush_seconds": round(built_at - flushed_wall, 2),
        "all_built_after_post_seconds": round(built_at - posted, 2),
        "attempts": sorted(rows[0]["attempt"] for rows in once["jobs"].values() if rows),
        "last_finished": max(finished).isoformat() if finished else None,
        **once,
    }


def restart_redis_with_builds_queued(topo: Topology, *, builds: int = 12, timeout: float = 120) -> dict:
    """Redis stopped and started again empty (no dump: the machine's Redis keeps nothing on
    disk) while builds run and more wait in the queue: the messages, the subject locks and the
    worker heartbeats are gone, not merely flushed while the connections stayed up. Every
    build still ends built once; none stays queued."""
    founders = topo.founders(builds)
    posted = time.time()
    for founder in founders:
        founder.build()
    wait_for(lambda: sum(len(topo.calls_running(p)) for n, p in topo.pids().items() if n.startswith("worker_"))
             >= topo.worker_processes * topo.worker_threads, 60, "every worker thread busy")
    queued = topo.sql("SELECT COUNT(*) FROM job WHERE kind = %s AND status = 'queued'", BUILD)[0][0]
    pids = topo.pids()
    stopped_wall = time.time()
    topo.redis.stop()
    time.sleep(2)  # down long enough for every process to meet the outage
    topo.redis.start()
    restarted_wall = time.time()
    built_at = wait_built(founders, timeout)
    # The builds' follow-up jobs (their ads) were sent after the restart: they end too.
    unfinished = "SELECT kind, subject, status, attempt, error FROM job WHERE status NOT IN ('done', 'failed')"
    try:
        wait_for(lambda: not topo.sql(unfinished), timeout, "every job to end")
    except AssertionError:
        pass  # left_unfinished names them
    ended_wall = time.time()
    once = _once(topo, founders)
    return {
        "builds": builds, "queued_at_stop": queued, "down_seconds": round(restarted_wall - stopped_wall, 2),
        "all_built_after_restart_seconds": round(built_at - restarted_wall, 2),
        "all_built_after_post_seconds": round(built_at - posted, 2),
        "attempts": sorted(rows[0]["attempt"] for rows in once["jobs"].values() if rows),
        "every_job_ended_after_restart_seconds": round(ended_wall - restarted_wall, 2),
        "left_unfinished": topo.sql(unfinished),
        "job_counts": dict(topo.sql("SELECT kind || ':' || status, COUNT(*) FROM job GROUP BY kind, status")),
        "pids_before": pids, "pids_after": topo.pids(), "exits": topo.exits(),
        **once,
    }


# -- the database cut under traffic ---------------------------------------------------------------


class Traffic:
    """Founder journeys in threads, each a new browser after its store is built: GET /api/find,
    POST /api/pass {claim}, POST /api/store, GET /api/store until built or failed; the first
    store built is published. Customers open orders in it, visitors read its home page. Every
    API answer is recorded as (method, path, status, is_json, reason), every page view as
    (status, content type); a request that got no HTTP answer at all has status None. `timed`
    holds (method, path, wall time asked, seconds to the answer) of each API request and
    page view."""

    def __init__(self, base_url: str, threads: int = 4, customers: int = 1, visitors: int = 0):
        self.base_url = base_url
        self.answers: list[tuple] = []
        self.timed: list[tuple] = []
        self.claimed: list[str] = []
        self.built: list[str] = []
        self.orders: list[str] = []
        self.shop: str | None = None  # the product whose store the first founder published
        self.shop_url: str | None = None  # its public page (a path)
        self.pages: list[tuple] = []  # (status, content type) of each visitor's page view
        self._publishing = False  # a founder thread is publishing the one store
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._run, name=f"founder-{n}", daemon=True) for n in range(threads)]
        self._threads += [threading.Thread(target=self._buy, name=f"customer-{n}", daemon=True)
                          for n in range(customers)]
        self._threads += [threading.Thread(target=self._visit, name=f"visitor-{n}", daemon=True)
                          for n in range(visitors)]

    def _call(self, http, method: str, path: str, **kwargs) -> dict | None:
        import requests

        asked, began = time.time(), time.monotonic()
        try:
            answer = http.request(method, self.base_url + path, timeout=15, **kwargs)
        except requests.RequestException as exc:
            with self._lock:
                self.answers.append((method, path, None, False, f"{type(exc).__name__}"))
                self.timed.append((method, path, asked, round(time.monotonic() - began, 2)))
            return None
        with self._lock:
            self.timed.append((method, path, asked, round(time.monotonic() - began, 2)))
        try:
            body = answer.json()
            is_json = answer.headers.get("Content-Type", "").startswith("application/json") and isinstance(body, dict)
        except ValueError:
            body, is_json = None, False
        with self._lock:
            self.answers.append((method, path, answer.status_code, is_json,
                                 body.get("reason") if isinstance(body, dict) else answer.text[:80]))
        return body if answer.status_code == 200 and is_json else None

    def _run(self) -> None:
        import requests

        while not self._stop.is_set():
            http = requests.Session()
            card = self._call(http, "GET", "/api/find")
            if not card or not card.get("product_id"):
                self._stop.wait(0.2)
                continue
            claimed = self._call(http, "POST", "/api/pass", json={"action": "claim", "product_id": card["product_id"]})
            if not claimed or claimed.get("status") != "claimed":
                continue
            with self._lock:
                self.claimed.append(card["product_id"])
            if not self._call(http, "POST", "/api/store"):
                continue
            while not self._stop.is_set():
                store = self._call(http, "GET", "/api/store") or {}
                if store.get("status") in ("built", "failed"):
                    if store["status"] == "built":
                        with self._lock:
                            self.built.append(card["product_id"])
                        if self._take_the_publishing():
                            published = self._call(http, "POST", "/api/store/publish") or {}
                            with self._lock:
                                if published.get("status") == "published":
                                    self.shop, self.shop_url = card["product_id"], published.get("public_url")
                                self._publishing = False
                    break
                self._stop.wait(0.25)

    def _take_the_publishing(self) -> bool:
        """Whether this thread publishes the one store the visitors read: only while none is
        published or being published. Two founders publishing at once would move the visitor
        to the second store, whose page a fault scenario may then meet never yet rendered."""
        with self._lock:
            if self.shop is not None or self._publishing:
                return False
            self._publishing = True
            return True

    def _buy(self) -> None:
        """A customer of the published store: opens an order (its payment and the provider's
        checkout), then asks for its state, again and again."""
        import requests

        http = requests.Session()
        while not self._stop.is_set():
            if self.shop is None:
                self._stop.wait(0.2)
                continue
            order = self._call(http, "POST", "/api/store/checkout",
                               json={"product_id": self.shop, "quantity": 1, "email": "buyer@example.com"})
            if order and order.get("order_id"):
                with self._lock:
                    self.orders.append(order["order_id"])
                self._call(http, "GET", f"/api/store/confirm?order_id={order['order_id']}")
            self._stop.wait(0.1)

    def _visit(self) -> None:
        """A visitor of the published store, with no cookie: its home page, again and again."""
        import requests

        while not self._stop.is_set():
            if self.shop_url is None:
                self._stop.wait(0.2)
                continue
            asked, began = time.time(), time.monotonic()
            try:
                answer = requests.get(self.base_url + self.shop_url, timeout=15)
                seen = (answer.status_code, answer.headers.get("Content-Type", ""))
            except requests.RequestException as exc:
                seen = (None, type(exc).__name__)
            with self._lock:
                self.pages.append(seen)
                self.timed.append(("GET", self.shop_url, asked, round(time.monotonic() - began, 2)))
            self._stop.wait(0.2)

    def __enter__(self) -> Traffic:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=30)

    def count(self) -> int:
        with self._lock:
            return len(self.answers)


def _invariants(topo: Topology) -> dict:
    """What a half-written claim or build would leave, read with SQL: each list should be empty."""
    return {
        # A claim drops the product's hold in its own transaction.
        "claims_still_held": topo.sql("SELECT c.product_id FROM product_claim c JOIN product_hold h USING (product_id)"),
        # A claim spends its owner's allowance in the same transaction: claims made = claims.
        "allowances_off": topo.sql(
            "SELECT a.owner, a.claims_made, COUNT(c.id) FROM claim_allowance a LEFT JOIN product_claim c "
            "ON a.owner = 'session:' || c.session_id AND c.account_id IS NULL "
            "WHERE left(a.owner, 8) = 'session:' GROUP BY a.owner, a.claims_made HAVING a.claims_made <> COUNT(c.id)"),
        "claims_unspent": topo.sql(
            "SELECT c.product_id FROM product_claim c LEFT JOIN claim_allowance a ON a.owner = 'session:' || c.session_id "
            "WHERE c.account_id IS NULL AND a.owner IS NULL"),
        # A build job is created with its store row; a store's newest version exists, and so
        # does every version before it (one version per build, numbered from 1).
        "builds_without_store": topo.sql(
            "SELECT j.subject FROM job j LEFT JOIN store s ON 'store:' || s.product_id = j.subject "
            "WHERE j.kind = %s AND s.product_id IS NULL", BUILD),
        "stores_without_their_versions": topo.sql(
            "SELECT s.product_id, s.version, COUNT(v.number) FROM store s LEFT JOIN store_version v USING (product_id) "
            "GROUP BY s.product_id, s.version HAVING s.version <> COUNT(v.number) "
            "OR s.version <> COALESCE(MAX(v.number), 0)"),
        "done_builds_without_a_version": topo.sql(
            "SELECT j.subject FROM job j JOIN store s ON 'store:' || s.product_id = j.subject "
            "WHERE j.kind = %s AND j.status = 'done' AND s.version = 0", BUILD),
        "jobs_unfinished": topo.sql("SELECT kind, subject, status FROM job WHERE status NOT IN ('done', 'failed')"),
        # An order is opened with its payment in one transaction.
        "orders_without_payment": topo.sql(
            "SELECT o.id FROM customer_order o LEFT JOIN payment p ON p.id = o.payment WHERE p.id IS NULL"),
        "order_payments_without_order": topo.sql(
            "SELECT p.id FROM payment p LEFT JOIN customer_order o ON o.payment = p.id "
            "WHERE p.purpose = 'order' AND o.id IS NULL"),
    }


def documented_routes(topo: Topology) -> list[tuple[str, str]]:
    """(method, path) of every operation of the served OpenAPI document, path parameters
    filled with a value no row has."""
    import re

    document = topo.get("/api/openapi.json").json()
    return sorted((method.upper(), re.sub(r"\{[^}]+\}", "nothing-here", path))
                  for path, operations in document["paths"].items()
                  for method in operations if method in ("get", "post", "put", "patch", "delete"))


def sweep(base_url: str, routes, *, browsers: int = 1) -> list[tuple]:
    """Asks every route once, as a same-origin browser (a JSON body where one may be taken),
    the routes shared among `browsers` asking side by side; returns (method, path, status,
    content type, whether the body is a JSON object (or the feed's array), seconds) of each
    answer (status None: no answer at all)."""
    if browsers > 1:
        shares: list[list] = [[] for _ in range(browsers)]
        threads = [threading.Thread(target=lambda n=n: shares[n].extend(sweep(base_url, routes[n::browsers])),
                                    daemon=True) for n in range(browsers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return [answer for share in shares for answer in share]
    import requests

    http = requests.Session()
    answers = []
    for method, path in routes:
        began = time.monotonic()
        try:
            answer = http.request(method, base_url + path, timeout=15, allow_redirects=False,
                                  **({} if method == "GET" else {"json": {}}))
        except requests.RequestException as exc:
            answers.append((method, path, None, type(exc).__name__, False, round(time.monotonic() - began, 2)))
            continue
        kind = answer.headers.get("Content-Type", "")
        try:
            # The feed is a JSON array of cards (a refusal of it an object, as everywhere).
            is_json = kind.startswith("application/json") and isinstance(
                answer.json(), (dict, list) if path == "/api/feed" else dict)
        except ValueError:
            is_json = False
        answers.append((method, path, answer.status_code, kind, is_json, round(time.monotonic() - began, 2)))
    return answers


def cut_the_database_under_traffic(topo: Topology, proxy, *, threads: int = 4, outage_seconds: float = 5,
                                   timeout: float = 60, freeze: bool = False) -> dict:
    """Founder traffic on every thread, a customer opening orders and a visitor reading the
    published store; the database proxy cut (every connection closed, new ones refused) for
    `outage_seconds`, or with `freeze` frozen (nothing passed on, nothing closed: a network
    that drops packets, a hung server), then restored. During it every documented route is
    asked once and GET /api/health again and again. Measures how long each answer took, how
    soon health and a founder's claim answer 200 again from the same processes, lets every
    job end, and reads the invariants a half-written claim or build would break."""
    pids = topo.pids()
    routes = documented_routes(topo)
    began = time.time()
    with Traffic(topo.base_url, threads, visitors=1) as traffic:
        # Under way: stores built, one published and read by its visitor, a customer's orders opened.
        wait_for(lambda: len(traffic.built) >= 2 and len(traffic.orders) >= 2 and (
            200, "text/html; charset=utf-8") in traffic.pages, timeout, "the journeys under way")
        before, pages_before = traffic.count(), len(traffic.pages)
        cut_wall = time.time()
        connections_cut = proxy.freeze() if freeze else proxy.cut()
        # Beside the founders, every documented route is asked once while the database is away,
        # and health again and again.
        swept: list = []
        # (Side by side when frozen: each route may wait its whole database bound.)
        sweeping = threading.Thread(target=lambda: swept.extend(sweep(topo.base_url, routes, browsers=6 if freeze else 1)),
                                    daemon=True)
        sweeping.start()
        health_during = []
        while time.time() < cut_wall + outage_seconds or sweeping.is_alive():
            health_during.append(ask_health(topo.base_url))
            time.sleep(0.2)
        during, pages_during = traffic.answers[before:], traffic.pages[pages_before:]
        timed_during = [t for t in traffic.timed if cut_wall <= t[2] < time.time()]
        proxy.thaw() if freeze else proxy.restore()
        restored_wall = time.time()
        wait_for(lambda: topo.get("/api/health").status_code == 200, timeout, "health to answer 200 again")
        healthy_wall = time.time()
        claims_at_restore = len(traffic.claimed)
        wait_for(lambda: len(traffic.claimed) > claims_at_restore + threads, timeout, "founders claiming again")
        claiming_wall = time.time()
        built_at_restore, orders_at_restore = len(traffic.built), len(traffic.orders)
        wait_for(lambda: len(traffic.built) > built_at_restore, timeout, "a store built after the outage")
        wait_for(lambda: len(traffic.orders) > orders_at_restore, timeout, "an order opened after the outage")
    # Every job ends: done, or failed for good; none left queued or running (the reaper
    # sends again what the outage stranded).
    wait_for(lambda: topo.sql("SELECT COUNT(*) FROM job WHERE status NOT IN ('done', 'failed')")[0][0] == 0,
             timeout, "every job to end")
    settled_wall = time.time()
    answers = traffic.answers
    statuses: dict = {}
    for _method, _path, status, _is_json, _reason in answers:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    refusals = sorted({(status, reason) for _m, _p, status, is_json, reason in answers if status != 200})
    return {
        "threads": threads, "traffic_before_cut_seconds": round(cut_wall - began, 2),
        "outage_seconds": round(restored_wall - cut_wall, 2), "connections_cut": connections_cut,
        "answers": len(answers), "answers_during_outage": len(during), "statuses": statuses,
        "routes_swept": len(swept),
        "routes_statuses": sorted({(a[2], a[4]) for a in swept}, key=str),
        # The API answers JSON; the pages, feeds and images outside /api/ answer their own type.
        "api_routes_not_json": [a[:4] for a in swept if a[1].startswith("/api/") and not a[4]],
        "other_routes_not_json": [a[:4] for a in swept if not a[1].startswith("/api/") and not a[4]],
        "routes_failing": [a[:4] for a in swept if a[2] is None or (a[2] >= 500 and not (a[2] == 503 and a[4]))],
        "refusals": refusals,
        "not_json": [a for a in answers if not a[3]][:5],
        "no_answer": [a for a in answers if a[2] is None][:5],
        # The slowest answers while the database was away: founders, the customer, the
        # visitor and the sweep (each (method, path, seconds)); health's, and its words.
        "slowest_during_outage": sorted(
            [(m, p.split("?")[0], sec) for m, p, _asked, sec in timed_during]
            + [(a[0], a[1], a[5]) for a in swept], key=lambda t: -t[2])[:8],
        "health_during": health_during,
        "pages_during_outage": sorted(set(pages_during), key=str),
        "healthy_after_restore_seconds": round(healthy_wall - restored_wall, 2),
        "claiming_after_restore_seconds": round(claiming_wall - restored_wall, 2),
        "jobs_ended_after_restore_seconds": round(settled_wall - restored_wall, 2),
        "claims": len(traffic.claimed), "built": len(traffic.built), "orders": len(traffic.orders),
        # Payments whose provider checkout was never opened (the cut came between the order's
        # transaction and the provider): an open order nobody can pay, not a charge.
        "payments_never_opened": topo.sql("SELECT COUNT(*) FROM payment WHERE provider_ref IS NULL")[0][0],
        "jobs": dict(topo.sql("SELECT status, COUNT(*) FROM job GROUP BY status")),
        "pids_before": pids, "pids_after": topo.pids(), "exits": topo.exits(),
        "invariants": _invariants(topo),
    }


# -- Redis stopped under traffic ---------------------------------------------------------------


def children(pid: int) -> list[int]:
    """The pids of `pid`'s child processes (a gunicorn master's workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return sorted(found)


def ask_health(base_url: str) -> dict:
    """One GET /api/health: its HTTP status and what it says (status None: no answer)."""
    import requests

    began = time.monotonic()
    try:
        answer = requests.get(base_url + "/api/health", timeout=15)
        body = answer.json()
    except (requests.RequestException, ValueError) as exc:
        return {"http": None, "error": type(exc).__name__, "seconds": round(time.monotonic() - began, 2)}
    return {"http": answer.status_code, "status": body.get("status"), "broker_ok": body["broker"]["ok"],
            "database_ok": body["database"]["ok"], "worker_heard_from": body["worker"]["heard_from"],
            "seconds": round(time.monotonic() - began, 2)}


def _post_build(founder: Founder, into: dict) -> None:
    """POST /api/store for `founder` (a thread's work): what it answered, and how long it took."""
    import requests

    began = time.monotonic()
    try:
        answer = founder.http.post(founder.base_url + "/api/store", timeout=30)
        body = answer.json()
        into[founder.product_id] = {"http": answer.status_code, "status": body.get("status"),
                                    "reason": body.get("reason"), "job_id": body.get("job_id"),
                                    "json": answer.headers.get("Content-Type", "").startswith("application/json")}
    except (requests.RequestException, ValueError) as exc:
        into[founder.product_id] = {"http": None, "error": type(exc).__name__}
    into[founder.product_id]["seconds"] = round(time.monotonic() - began, 2)


def _newcomer(base_url: str, into: list) -> None:
    """A new browser's first steps (a thread's work): GET /api/find, GET /api/feed, and a claim
    of the card found; each answer as (method, path, status, is_json, what it said, seconds)."""
    import requests

    http = requests.Session()
    card: dict = {}
    for method, path in (("GET", "/api/find"), ("GET", "/api/feed"), ("POST", "/api/pass")):
        extra = {"json": {"action": "claim", "product_id": card.get("product_id")}} if method == "POST" else {}
        began = time.monotonic()
        try:
            answer = http.request(method, base_url + path, timeout=30, **extra)
            body = answer.json()
        except (requests.RequestException, ValueError) as exc:
            into.append((method, path, None, False, type(exc).__name__, round(time.monotonic() - began, 2)))
            continue
        # The feed is a JSON array of cards; the other two answer a JSON object.
        is_json = answer.headers.get("Content-Type", "").startswith("application/json") and isinstance(
            body, list if path == "/api/feed" else dict)
        into.append((method, path, answer.status_code, is_json, body.get("reason") or body.get("status")
                     if isinstance(body, dict) else f"{len(body)} cards" if isinstance(body, list) else None,
                     round(time.monotonic() - began, 2)))
        if path == "/api/find" and isinstance(body, dict):
            card = body


def _sent_again_by_the_reaper(topo: Topology) -> set[str]:
    """The job ids of every "jobs sent again" line the reaper (in the clock) printed."""
    found: set[str] = set()
    for line in topo.output().splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("logger") == "reaper" and event.get("msg") == "jobs sent again":
            found.update(event.get("job_ids") or [])
    return found


def _web_errors(topo: Topology) -> list[dict]:
    """Lines at error level or above from the web's loggers (the app's and gunicorn's)."""
    found = []
    for line in topo.output().splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("level") in ("error", "critical") and str(event.get("logger", "")).startswith(("api", "gunicorn")):
            found.append(event)
    return found


def stop_redis_under_traffic(topo: Topology, *, threads: int = 3, outage_seconds: float = 6,
                             outage_builds: int = 2, timeout: float = 60, hang: bool = False) -> dict:
    """Founder traffic on `threads` threads (find, claim, build, poll; the first store
    published), a customer opening orders in it and a visitor reading its home page, while the
    topology's Redis is stopped (with `hang`: frozen, connections taken and never answered)
    for `outage_seconds` (at least until the builds and the sweep below have answered) and
    started again. During the outage `outage_builds` founders who claimed before it POST
    /api/store, a new browser finds, reads its feed and claims, every route of the OpenAPI
    document is asked once, and GET /api/health is asked again and again. Then measures how
    soon health reads ok again, whether the builds posted during the outage (their message
    could not be sent) were built, and by whom they were sent, and reads the invariants a
    half-written claim or build would break."""
    pids, web_workers = topo.pids(), children(topo.pids()["web"])
    waiting = topo.founders(outage_builds)  # claimed now, built during the outage
    routes = documented_routes(topo)
    swept: list = []
    began = time.time()
    with Traffic(topo.base_url, threads, visitors=1) as traffic:
        # Under way: stores built, one published and read by its visitor, a customer's order opened.
        wait_for(lambda: len(traffic.built) >= 2 and traffic.orders and (200, "text/html; charset=utf-8") in
                 traffic.pages, timeout, "the journeys under way")
        health_before = ask_health(topo.base_url)
        before, pages_before = traffic.count(), len(traffic.pages)
        stopped_wall = time.time()
        topo.redis.hang() if hang else topo.redis.stop()
        posted: dict = {}
        newcomer: list = []
        posting = [threading.Thread(target=_post_build, args=(f, posted), daemon=True) for f in waiting]
        posting.append(threading.Thread(target=_newcomer, args=(topo.base_url, newcomer), daemon=True))
        posting.append(threading.Thread(target=lambda: swept.extend(sweep(topo.base_url, routes)), daemon=True))
        for thread in posting:
            thread.start()
        health_during = []
        while time.time() < stopped_wall + outage_seconds or any(t.is_alive() for t in posting):
            health_during.append(ask_health(topo.base_url))
            time.sleep(0.2)
        # Read while Redis is still away: the rows of the builds whose message could not be sent.
        rows_during = topo.builds([f.product_id for f in waiting])
        during, pages_during = traffic.answers[before:], traffic.pages[pages_before:]
        # What was asked while Redis was away, and how long its answer took.
        timed_during = [t for t in traffic.timed if stopped_wall <= t[2] < time.time()]
        topo.redis.unhang() if hang else topo.redis.start()
        restarted_wall = time.time()
        wait_for(lambda: ask_health(topo.base_url)["status"] == "ok", timeout, "health to read ok again")
        healthy_wall = time.time()
        built_at_restart, claims_at_restart = len(traffic.built), len(traffic.claimed)
        wait_for(lambda: len(traffic.built) > built_at_restart and len(traffic.claimed) > claims_at_restart,
                 timeout, "founders claiming and building again")
        building_wall = time.time()
        outage_built_wall = wait_built(waiting, timeout)
        pages_after = traffic.pages[pages_before + len(pages_during):]
    wait_for(lambda: topo.sql("SELECT COUNT(*) FROM job WHERE status NOT IN ('done', 'failed')")[0][0] == 0,
             timeout, "every job to end")
    settled_wall = time.time()
    answers = traffic.answers
    statuses: dict = {}
    for _method, _path, status, _is_json, _reason in answers:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    outage_job_ids = {v.get("job_id") for v in posted.values()}
    return {
        "threads": threads, "traffic_before_stop_seconds": round(stopped_wall - began, 2),
        "outage_seconds": round(restarted_wall - stopped_wall, 2),
        "answers": len(answers), "answers_during_outage": len(during), "statuses": statuses,
        "during_outage": sorted({(m, p.split("?")[0], s, r if s != 200 else None) for m, p, s, _j, r in during},
                                key=str),
        "refusals": sorted({(s, r) for _m, _p, s, _j, r in answers if s != 200}, key=str),
        # The slowest answers while Redis was away: founders, the customer, the visitor, the
        # sweep, the builds posted and the newcomer (each (method, path, seconds)).
        "slowest_during_outage": sorted(
            [(m, p.split("?")[0], sec) for m, p, _asked, sec in timed_during]
            + [(a[0], a[1], a[5]) for a in swept]
            + [("POST", "/api/store", b["seconds"]) for b in posted.values()]
            + [(n[0], n[1], n[5]) for n in newcomer], key=lambda t: -t[2])[:8],
        "routes_swept": len(swept),
        # (A redirect, as the sign-in link's landing answers, is not an API answer.)
        "api_routes_not_json": [a[:4] for a in swept if a[1].startswith("/api/") and not a[4]
                                and not (a[2] and 300 <= a[2] < 400)],
        "routes_failing": [a[:4] for a in swept if a[2] is None or (a[2] >= 500 and not (a[2] == 503 and a[4]))],
        "routes_refusals": sorted({(a[2], a[1]) for a in swept if a[2] and a[2] >= 500}, key=str),
        "not_json": [a for a in answers if not a[3]][:5],
        "no_answer": [a for a in answers if a[2] is None][:5],
        "server_errors": [a for a in answers if a[2] is not None and a[2] >= 500][:5],
        "page_views": len(traffic.pages), "page_views_during_outage": len(pages_during),
        "pages_during_outage": sorted(set(pages_during), key=str), "pages_after": sorted(set(pages_after), key=str),
        "health_before": health_before, "health_during": health_during,
        "outage_builds": posted, "outage_rows_during": rows_during, "newcomer_during_outage": newcomer,
        "outage_builds_sent_by_the_reaper": sorted(outage_job_ids & _sent_again_by_the_reaper(topo)),
        "outage_builds_once": _once(topo, waiting),
        "healthy_after_restart_seconds": round(healthy_wall - restarted_wall, 2),
        "building_after_restart_seconds": round(building_wall - restarted_wall, 2),
        "outage_builds_built_after_restart_seconds": round(outage_built_wall - restarted_wall, 2),
        "jobs_ended_after_restart_seconds": round(settled_wall - restarted_wall, 2),
        "claims": len(traffic.claimed), "built": len(traffic.built), "orders": len(traffic.orders),
        "job_counts": dict(topo.sql("SELECT kind || ':' || status, COUNT(*) FROM job GROUP BY kind, status")),
        "jobs_failed": topo.sql("SELECT kind, subject, error FROM job WHERE status = 'failed'"),
        "web_errors": _web_errors(topo)[:5],
        "pids_before": pids, "pids_after": topo.pids(), "exits": topo.exits(),
        "web_workers_before": web_workers, "web_workers_after": children(topo.pids()["web"]),
        "invariants": _invariants(topo),
    }
