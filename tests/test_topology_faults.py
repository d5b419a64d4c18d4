"""The production topology under its supervisor (deploy/supervisord.conf, as `make procs` runs
it), with faults: a worker killed, a worker stopped, a stop longer than the shutdown time, Redis
flushed, Redis restarted empty, Redis stopped under founder traffic, and PostgreSQL cut under
founder traffic (through a proxy the test cuts, tests/tcp_proxy.py: the machine's PostgreSQL
keeps serving the rest of the suite). Each test starts its own topology (tests/topology.py):
web, two worker processes of two threads, the clock, on a PostgreSQL database named after
TEST_DATABASE_URL and a Redis of its own; store builds take a few seconds each (a slow model
program). The figures are printed (`pytest -s`) and kept in bench/README.md
(bench/faults_bench.py runs the same with more builds).

Marked `faults`: they run in the PostgreSQL and Redis pass only (tests/conftest.py).
"""
from __future__ import annotations

import json
import statistics
import time
from urllib.parse import urlsplit, urlunsplit

import pytest

from config import Settings
from services.reasons import REASONS
from tests.conftest import TEST_DATABASE_URL
from tests.tcp_proxy import TcpProxy
from tests.topology import (
    Topology,
    cut_the_database_under_traffic,
    flush_redis_with_builds_queued,
    kill_worker_mid_batch,
    restart_redis_with_builds_queued,
    stop_redis_under_traffic,
    stop_worker_during_builds,
    stop_worker_past_its_shutdown_time,
)

pytestmark = pytest.mark.faults

RECOVERY_SECONDS = 30  # reliability.md: every job of a lost worker is running again within 30 s


@pytest.fixture
def topology(tmp_path):
    """Starts a topology of the test's own, `topology(**options)` (see Topology), and stops
    it afterwards; every line its processes printed must be one JSON object (a traceback
    inside one)."""
    started = []

    def start(**options) -> Topology:
        topo = Topology(tmp_path, TEST_DATABASE_URL + "_topology", **options)
        started.append(topo)
        return topo.start()

    yield start
    for topo in started:
        topo.stop()
        topo.drop()
    for topo in started:
        for line in topo.output().splitlines():
            assert line.startswith("{") and json.loads(line), line


def _wait(read, seconds: float):
    """What `read` returns once it has something (the events line may trail the restart a little)."""
    deadline = time.monotonic() + seconds
    while not (found := read()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def report(name: str, figures: dict) -> None:
    shown = {k: v for k, v in figures.items() if k not in ("jobs", "versions")}
    print(f"\n{name}: {json.dumps(shown, default=str)}")


def test_a_worker_killed_mid_batch_is_the_only_process_restarted_and_its_builds_run_again(topology):
    # 36 builds of 4 s on four threads: the killed worker's builds come back with some 20
    # builds still queued, and go ahead of them (at the back they would start after 30 s).
    topo = topology(build_seconds=4)
    figures = kill_worker_mid_batch(topo, builds=36)
    report("kill -9 one worker mid-batch", figures)
    # Only the killed process restarted: the other worker, web and clock kept their pids.
    assert figures["new_pid"] != figures["worker_pid"]
    assert figures["unchanged"] == sorted(n for n in figures["pids_before"] if n != figures["worker"])
    # The operator sees it in the stream: one unexpected exit, of that worker.
    assert _wait(lambda: topo.exits(), 5) == [(figures["worker"], False)]
    # The web answered throughout.
    assert figures["health_errors"] == 0, figures["health_error_samples"]
    assert figures["health_answers"] > 0
    # Every build finished once: one job row, done, one store version each.
    assert figures["all_done_once"], (figures["jobs"], figures["versions"])
    # Each build the killed worker was running ran again (attempt 2), within 30 s of the kill.
    assert set(figures["held"]) <= set(figures["rerun"]), figures
    assert all(0 < s <= RECOVERY_SECONDS for s in figures["rerun_started_after_seconds"].values()), figures
    # supervisorctl, as an operator runs it, sees every program running.
    status = topo.ctl("status")
    assert status.returncode == 0, status.stdout + status.stderr
    for name in ["web", "clock", *(f"worker:{n}" for n in topo.worker_names())]:
        assert any(line.startswith(name) and "RUNNING" in line for line in status.stdout.splitlines()), status.stdout


def test_one_sigterm_drains_a_worker_its_builds_finish_there_and_none_waits_for_the_reaper(topology):
    figures = stop_worker_during_builds(topology(build_seconds=4), builds=8)
    report("SIGTERM one worker during slow builds", figures)
    # The builds it was running finished in that process before it exited.
    assert figures["held"] and figures["held_finished_in_process"] == figures["held"], figures
    assert not figures["second_signal_logged"]
    # supervisord started it again; nothing else restarted.
    assert figures["new_pid"] != figures["worker_pid"]
    assert figures["unchanged"] == sorted(n for n in figures["pids_before"] if n != figures["worker"])
    assert figures["exits"] == [(figures["worker"], True)]  # exit status 0: a drain, not a crash
    # Every build finished once, at its first attempt, and none waited for a lease to run out.
    assert figures["all_done_once"], (figures["jobs"], figures["versions"])
    assert figures["attempts"] == [1], figures
    assert figures["all_built_after_hit_seconds"] < Settings.job_lease_seconds, figures


def test_a_stop_longer_than_the_shutdown_time_hands_the_build_back_at_once(topology):
    topo = topology(build_seconds=12, env={"WORKER_SHUTDOWN_SECONDS": "2"})
    figures = stop_worker_past_its_shutdown_time(topo, builds=4)
    report("SIGTERM past WORKER_SHUTDOWN_SECONDS=2", figures)
    # It exited after about its 2 s of shutdown time, not after its builds (12 s).
    assert 1.5 <= figures["exited_after_seconds"] <= 6, figures
    assert figures["new_pid"] != figures["worker_pid"]
    # What it was running ran again (attempt 2) as soon as a worker could take it: handed back, not
    # reaped. The reaper could only have taken it once the worker had been silent for
    # WORKER_LOST_SECONDS after it exited (its lease runs out later still), so a rerun before then
    # was handed back. (The restarted process boots first: 9.3 s after the signal on a loaded
    # 2-core machine, 4 to 6 s when idle.)
    assert set(figures["held"]) <= set(figures["rerun"]), figures
    handed_back_by = figures["exited_after_seconds"] + Settings.worker_lost_seconds
    assert all(0 < s < handed_back_by for s in figures["rerun_started_after_seconds"].values()), figures
    assert figures["all_done_once"], (figures["jobs"], figures["versions"])


def test_builds_queued_when_redis_is_flushed_all_finish_once_within_30_s(topology):
    figures = flush_redis_with_builds_queued(topology(build_seconds=3), builds=12)
    report("FLUSHALL with builds queued", figures)
    assert figures["queued_at_flush"] > 0, figures
    assert figures["all_done_once"], (figures["jobs"], figures["versions"])
    assert figures["all_built_after_flush_seconds"] <= RECOVERY_SECONDS, figures


def test_builds_queued_when_redis_restarts_empty_all_end_built_and_none_stays_queued(topology):
    # A restart is not a flush: every connection drops, and the server comes back without the
    # messages, the locks and the heartbeats (it keeps nothing on disk).
    topo = topology(build_seconds=2)
    figures = restart_redis_with_builds_queued(topo, builds=8)
    report("Redis restarted empty with builds queued", figures)
    assert figures["queued_at_stop"] > 0, figures
    assert figures["all_done_once"], (figures["jobs"], figures["versions"])
    assert figures["left_unfinished"] == [], figures
    # Nothing restarted: the processes rode the outage out.
    assert figures["pids_after"] == figures["pids_before"] and figures["exits"] == [], figures
    assert figures["all_built_after_restart_seconds"] <= RECOVERY_SECONDS, figures


@pytest.fixture
def database_proxy():
    parts = urlsplit(TEST_DATABASE_URL)
    with TcpProxy(parts.hostname or "127.0.0.1", parts.port or 5432) as proxy:
        yield proxy


def test_the_database_cut_under_founder_traffic_answers_json_writes_nothing_half_and_recovers_without_a_restart(
        topology, database_proxy):
    """PostgreSQL taken away (every connection closed, new ones refused: a proxy between the
    processes and the database is cut, the machine's PostgreSQL keeps running) for 5 s
    while four founder threads find, claim, build and poll, a customer opens orders in a
    published store, and every route of the OpenAPI document is asked once; then given back."""
    proxied = urlunsplit(urlsplit(TEST_DATABASE_URL)._replace(
        netloc=f"{urlsplit(TEST_DATABASE_URL).username or 'postgres'}@127.0.0.1:{database_proxy.port}"))
    # Short leases and a reaper every second, so a build the outage stranded runs again soon.
    topo = topology(build_seconds=0.5, catalog_copies=3, service_database_url=proxied + "_topology",
                    env={"JOB_LEASE_SECONDS": "4", "REAPER_SECONDS": "1"})
    figures = cut_the_database_under_traffic(topo, database_proxy, threads=4, outage_seconds=5)
    report("PostgreSQL cut for 5 s under founder traffic", figures)
    # The outage was met: connections were open when it came, and founders asked during it.
    assert figures["connections_cut"] > 0 and figures["answers_during_outage"] > 0, figures
    # Every request got an answer, and every answer was a JSON object.
    assert figures["no_answer"] == [] and figures["not_json"] == [], figures
    # And every route of the OpenAPI document, asked once during the cut, answered: a JSON
    # object under /api/, and outside it no server error but a JSON 503 (the shell, the
    # metrics, the provider's logo answer their own type without the database).
    assert figures["routes_swept"] > 50 and figures["api_routes_not_json"] == [], figures
    assert figures["routes_failing"] == [], figures
    # Orders: each opened with its payment, whole or not at all.
    assert figures["orders"] > 0, figures
    # What was not a 200 was a 503 database_unavailable (nothing else, no 500).
    assert {(status, reason) for status, reason in figures["refusals"]} <= {(503, "database_unavailable")}, figures
    assert figures["statuses"].get("503", 0) > 0, figures
    # The same processes answer again once the database is back: no restart, no exit.
    assert figures["pids_after"] == figures["pids_before"] and figures["exits"] == [], figures
    assert figures["healthy_after_restore_seconds"] <= RECOVERY_SECONDS, figures
    assert figures["claiming_after_restore_seconds"] <= RECOVERY_SECONDS, figures
    # Nothing half-written: every claim complete, every job ended, every store with its versions.
    assert figures["invariants"] == {name: [] for name in figures["invariants"]}, figures["invariants"]
    assert set(figures["jobs"]) <= {"done", "failed"}, figures


# A frozen database costs a request at most DB_WAIT_SECONDS of waiting on it (2 s here), and
# at most about as long again waiting for a free thread behind requests that wait theirs
# (2.98 s the slowest measured; before, 9-27 s, and half the requests no answer at all).
FROZEN_DB_WAIT_SECONDS = 2
FROZEN_DB_ANSWER_SECONDS = 2 * FROZEN_DB_WAIT_SECONDS
# Health pings within its own second (services/health.py) and reads nothing more once the
# database did not answer (1.0 s measured, 2.0 s the slowest, behind busy threads).
FROZEN_HEALTH_SECONDS = 1.2


def test_a_database_that_stops_answering_costs_a_503_within_its_bound_not_the_web(topology, database_proxy):
    """PostgreSQL frozen for 10 s (the proxy passes nothing on and closes nothing: a network
    that drops packets, a hung server) under the same traffic, every route asked once and
    health again and again: each request is answered within its database wait and a little,
    as a 200 or JSON 503 `database_unavailable`; health says degraded within a second; the
    published store's cached page is still served; the same processes serve after."""
    proxied = urlunsplit(urlsplit(TEST_DATABASE_URL)._replace(
        netloc=f"{urlsplit(TEST_DATABASE_URL).username or 'postgres'}@127.0.0.1:{database_proxy.port}"))
    topo = topology(build_seconds=0.5, catalog_copies=3, service_database_url=proxied + "_topology",
                    env={"JOB_LEASE_SECONDS": "4", "REAPER_SECONDS": "1",
                         "DB_WAIT_SECONDS": str(FROZEN_DB_WAIT_SECONDS)})
    figures = cut_the_database_under_traffic(topo, database_proxy, threads=4, outage_seconds=10, freeze=True)
    report("PostgreSQL frozen for 10 s under founder traffic", figures)
    assert figures["connections_cut"] > 0 and figures["answers_during_outage"] > 0, figures
    assert figures["no_answer"] == [] and figures["not_json"] == [], figures
    # Every request answered soon: before, all 16 web threads waited on the frozen database
    # and half the requests, health included, got no answer at all.
    assert figures["slowest_during_outage"][0][2] <= FROZEN_DB_ANSWER_SECONDS, figures["slowest_during_outage"]
    assert figures["routes_swept"] > 50 and figures["api_routes_not_json"] == [], figures
    assert figures["routes_failing"] == [], figures
    assert {(status, reason) for status, reason in figures["refusals"]} <= {(503, "database_unavailable")}, figures
    assert figures["statuses"].get("503", 0) > 0, figures
    # Health answers without the database, within about its own second, and says so.
    health = figures["health_during"][1:]
    assert all(h["http"] == 200 and h["status"] == "degraded" for h in health), health
    assert statistics.median(h["seconds"] for h in health) <= FROZEN_HEALTH_SECONDS, health
    assert max(h["seconds"] for h in health) <= FROZEN_DB_ANSWER_SECONDS, health
    # A shopper still reads the published store, from whichever web process: its page is served
    # from the rendered copy (services/store/published.py), with no read of the database.
    assert {status for status, _type in figures["pages_during_outage"]} <= {200, 304}, figures
    assert figures["pids_after"] == figures["pids_before"] and figures["exits"] == [], figures
    assert figures["healthy_after_restore_seconds"] <= RECOVERY_SECONDS, figures
    assert figures["claiming_after_restore_seconds"] <= RECOVERY_SECONDS, figures
    assert figures["invariants"] == {name: [] for name in figures["invariants"]}, figures["invariants"]
    assert set(figures["jobs"]) <= {"done", "failed"}, figures


def test_redis_stopped_under_founder_traffic_the_same_web_answers_health_says_so_and_nothing_is_lost(topology):
    """Redis stopped for 4 s (and given back with what it held) while three founder threads
    find, claim, build and poll, a customer orders from the published store and a visitor
    reads it; during it two founders who claimed before ask for their builds, a new browser
    finds, reads its feed and claims, and GET /api/health is asked again and again."""
    # A reaper every second, so a build whose message could not be sent is sent soon after; a
    # worker silent for 3 s (it beats every second) is not heard from, so an outage of 4 s
    # would show a worker that stopped beating.
    topo = topology(build_seconds=0.5, catalog_copies=2, redis_keep=True,
                    env={"REAPER_SECONDS": "1", "WORKER_STALE_SECONDS": "3"})
    figures = stop_redis_under_traffic(topo, threads=3, outage_seconds=4, outage_builds=2)
    report("Redis stopped for 4 s under founder traffic", figures)
    # The outage was met: founders, the customer and the visitor asked during it.
    assert figures["answers_during_outage"] > 0 and figures["page_views_during_outage"] > 0, figures
    # Every request got an answer, a JSON object from the API and the store's page from the
    # store; no server error. What was not a 200 was a registered refusal.
    assert figures["no_answer"] == [] and figures["not_json"] == [] and figures["server_errors"] == [], figures
    assert all(reason in REASONS for _status, reason in figures["refusals"]), figures["refusals"]
    # Finding, the feed and claiming need no broker: a newcomer's first steps all succeed.
    assert [(m, p, s, j) for m, p, s, j, _said, _seconds in figures["newcomer_during_outage"]] == [
        ("GET", "/api/find", 200, True), ("GET", "/api/feed", 200, True), ("POST", "/api/pass", 200, True)], figures
    assert figures["newcomer_during_outage"][-1][4] == "claimed", figures["newcomer_during_outage"]
    # Every documented route, asked once during the outage, answered: JSON under /api/, and
    # no server error but a JSON 503.
    assert figures["routes_swept"] > 50 and figures["api_routes_not_json"] == [], figures
    assert figures["routes_failing"] == [], figures
    assert {status for status, _type in figures["pages_during_outage"]} <= {200, 304}, figures
    assert {kind for _status, kind in figures["pages_during_outage"]} == {"text/html; charset=utf-8"}, figures
    # Health: ok before; during the outage every answer a 200 saying degraded, the broker not
    # ok, the database ok and the workers heard from (they beat into the database whatever
    # Redis does); ok again once Redis is back (the scenario waits for it, and for founders
    # claiming and building again: how soon is a figure, not a test).
    assert figures["health_before"]["status"] == "ok", figures["health_before"]
    assert figures["health_during"] and all(
        (h["http"], h.get("status"), h.get("broker_ok"), h.get("database_ok"), h.get("worker_heard_from"))
        == (200, "degraded", False, True, True) for h in figures["health_during"]), figures["health_during"]
    # A build asked for while the broker was away is accepted (its job row kept queued, the
    # message not sent), sent by the reaper once Redis is back, and built once.
    assert all((b["http"], b["status"], b["json"]) == (200, "building", True)
               for b in figures["outage_builds"].values()), figures["outage_builds"]
    rows = figures["outage_rows_during"]
    assert all([r["status"] for r in rows.get(pid) or []] == ["queued"] for pid in figures["outage_builds"]), rows
    assert len(figures["outage_builds_sent_by_the_reaper"]) == len(figures["outage_builds"]), figures
    assert figures["outage_builds_once"]["all_done_once"], figures["outage_builds_once"]
    # The same processes throughout: no program restarted, no gunicorn worker replaced.
    assert figures["pids_after"] == figures["pids_before"] and figures["exits"] == [], figures
    assert figures["web_workers_after"] == figures["web_workers_before"], figures
    assert figures["web_errors"] == [], figures["web_errors"]
    # Every job ended (the scenario waits for it), none failed, nothing half-written.
    # (The stand-in model writes store copy only: an ad build fails on it, outage or not.)
    assert [job for job in figures["jobs_failed"] if job[0] != "ad_build" or job[2] != "generation_failed"] == [], \
        figures["jobs_failed"]
    assert figures["invariants"] == {name: [] for name in figures["invariants"]}, figures["invariants"]


# A web request waits at most REDIS_WAIT_SECONDS (1 s) on one Redis call; an answer that made
# a few (a build's send, a store page's pointer) takes a little more.
HUNG_REDIS_ANSWER_SECONDS = 3


def test_a_hung_redis_costs_a_request_seconds_not_the_web_and_nothing_is_lost(topology):
    """Redis frozen for 6 s (it takes connections and answers nothing) under the same traffic:
    each request, health included, is answered within a few seconds, as a 200 or a registered
    JSON refusal; a build asked for is accepted and sent by the reaper once Redis answers."""
    topo = topology(build_seconds=0.5, catalog_copies=2,
                    env={"REAPER_SECONDS": "1", "WORKER_STALE_SECONDS": "3"})
    figures = stop_redis_under_traffic(topo, threads=3, outage_seconds=6, outage_builds=2, hang=True)
    report("Redis hung for 6 s under founder traffic", figures)
    assert figures["answers_during_outage"] > 0 and figures["page_views_during_outage"] > 0, figures
    # Every request answered, and answered soon: no thread of the web waits on Redis for long.
    assert figures["no_answer"] == [] and figures["not_json"] == [] and figures["server_errors"] == [], figures
    assert figures["slowest_during_outage"][0][2] <= HUNG_REDIS_ANSWER_SECONDS, figures["slowest_during_outage"]
    assert all(reason in REASONS for _status, reason in figures["refusals"]), figures["refusals"]
    assert figures["routes_swept"] > 50 and figures["api_routes_not_json"] == [], figures
    assert figures["routes_failing"] == [], figures
    # A newcomer finds, reads the feed and claims; the store's page is served.
    assert [(m, p, s) for m, p, s, _j, _said, _seconds in figures["newcomer_during_outage"]] == [
        ("GET", "/api/find", 200), ("GET", "/api/feed", 200), ("POST", "/api/pass", 200)], figures
    assert {status for status, _type in figures["pages_during_outage"]} <= {200, 304}, figures
    # Health says degraded at once (its own ping waits half a second), and the workers are
    # still heard from: a hung broker beat does not hold up their database beat.
    assert figures["health_during"] and all(
        (h["http"], h.get("status"), h.get("broker_ok"), h.get("worker_heard_from")) == (200, "degraded", False, True)
        and h["seconds"] <= 1.5 for h in figures["health_during"]), figures["health_during"]
    # Builds asked for during it: accepted, sent by the reaper once Redis answers, built once.
    assert all((b["http"], b["status"], b["json"]) == (200, "building", True)
               for b in figures["outage_builds"].values()), figures["outage_builds"]
    assert figures["outage_builds_once"]["all_done_once"], figures["outage_builds_once"]
    assert figures["pids_after"] == figures["pids_before"] and figures["exits"] == [], figures
    assert figures["web_workers_after"] == figures["web_workers_before"], figures
    assert [job for job in figures["jobs_failed"] if job[0] != "ad_build" or job[2] != "generation_failed"] == [], \
        figures["jobs_failed"]
    assert figures["invariants"] == {name: [] for name in figures["invariants"]}, figures["invariants"]
