"""POST /api/discover (spec 4.3): the discovery script run in a worker, its answer, and the
bundled supplier feed it reads."""
import gzip
import http.server
import json
import subprocess
import sys
import threading
import time

import pytest

from config import ROOT, get_settings
from models.catalog import Product
from models.discovery import ProductGate
from services import evidence_gate
from services.discovery import run_capped, script_env
from tests.conftest import SETTINGS
from tests.factories import BUNDLED, TODAY, bundled_lines, discover, find, item, refusal

pytestmark = pytest.mark.usefixtures("frozen_clock")


def refused_run(body: dict) -> tuple:
    """What a failed run said: its exit code, the script's stderr and the refusal's words."""
    return body.get("exit_code"), body.get("stderr"), body.get("reason"), body.get("explanation")  # every test lives on tests.factories.NOW

def test_a_run_without_a_query_runs_the_scheduled_script_and_adds_qualified_products(client, run_jobs):
    body = discover(client)
    assert body["status"] == "ok", refused_run(body)
    assert body["exit_code"] == 0
    assert (body["query"], body["ran"]) == (None, "scripts/discover.py")
    assert body["stderr"] == []
    added = [line for line in body["log"] if line.startswith("added ")]
    assert len(added) == get_settings().discover_max_add == 25
    assert body["log"][-1].startswith("discover: 3000 feed products read, 3000 matched (no filter)")
    # The feed's offers of the demo catalog's products are no products to add: passed over quietly.
    offer_lines = sum(1 for line in bundled_lines() if "price" not in line)
    assert offer_lines > 0 and body["log"][-1].endswith(
        f", {offer_lines} offer lines of products listed elsewhere passed over")
    ids = [line.split()[1] for line in added]
    assert Product.select().where(Product.product_id.in_(ids)).count() == 25
    served = ProductGate.select().where(ProductGate.product.in_(ids), evidence_gate.servable()).count()
    assert served == 25
    assert find(client).get_json()["product_id"] in ids


def test_a_query_keeps_only_matching_products_and_ran_is_null(client, run_jobs):
    body = discover(client, q="bamboo cutting board")
    assert body["status"] == "ok", refused_run(body)
    assert (body["query"], body["ran"]) == ("bamboo cutting board", None)
    added = [line for line in body["log"] if line.startswith("added ")]
    assert added and all("Bamboo Cutting Board" in line for line in added)
    assert 'matched (the query "bamboo cutting board")' in body["log"][-1]
    names = [p.name for p in Product.select()]
    assert names and all("Bamboo Cutting Board" in name for name in names)


def test_a_second_run_adds_only_new_products_and_refresh_mode_updates(client, run_jobs):
    first = discover(client, q="laptop stand")
    count = Product.select().count()
    assert count == len([line for line in first["log"] if line.startswith("added ")]) > 0
    again = discover(client, q="laptop stand")
    assert not [line for line in again["log"] if line.startswith("added ")]
    assert f"{count} already in the catalog" in again["log"][-1]
    refreshed = discover(client, q="laptop stand", mode="refresh")
    assert len([line for line in refreshed["log"] if line.startswith("updated ")]) == count


def test_the_research_brief_option_without_a_brief_says_so_and_runs_unfiltered(client, run_jobs):
    body = discover(client, q="yoga mat", use_research_brief=True)
    assert body["status"] == "ok", refused_run(body)
    assert body["exit_code"] == 0
    assert body["stderr"] == ["discover: no nightly research brief has been published yet; "
                              "running with an empty brief filter"]
    assert 'matched (the query "yoga mat")' in body["log"][-1]


def test_a_failing_run_is_refused_with_the_scripts_own_lines(client, run_jobs):
    body = discover(client, q="kettle", mode="sideways")
    assert body["status"] == "refused" and body["exit_code"] == 2
    assert body["stderr"][0].startswith("usage: scripts/discover.py")
    assert body["stderr"][-1] == ("scripts/discover.py: error: argument --mode: invalid choice: 'sideways' "
                                  "(choose from 'new', 'refresh')")
    assert Product.select().count() == 0


def test_a_query_that_looks_like_an_option_is_only_a_query(client, run_jobs):
    body = discover(client, q="--refresh-gate")
    assert body["status"] == "ok", refused_run(body)
    assert body["query"] == "--refresh-gate"
    assert 'matched (the query "--refresh-gate")' in body["log"][-1]


def test_a_feed_folder_is_read_and_a_bad_line_is_skipped_with_a_note(client, run_jobs, settings_with, tmp_path):
    lines = [json.dumps(item("folder-a", rank=80)), "this is not json", json.dumps(item("folder-thin", cost=29.5))]
    (tmp_path / "one.jsonl").write_text("\n".join(lines) + "\n")
    with gzip.open(tmp_path / "two.jsonl.gz", "wt") as handle:
        handle.write(json.dumps(item("folder-b", rank=70)) + "\n")
    (tmp_path / "notes.txt").write_text("ignored")
    settings_with(supplier_feed=str(tmp_path))
    body = discover(client)
    assert body["status"] == "ok", refused_run(body)
    assert [line.split()[1] for line in body["log"] if line.startswith("added ")] == ["folder-a", "folder-b"]
    assert body["stderr"] == ["discover: one.jsonl line 2: skipped, not a product line"]
    assert "3 feed products read" in body["log"][-1] and "2 cleared the evidence gate" in body["log"][-1]
    assert "offer lines" not in body["log"][-1]


class _FeedHandler(http.server.BaseHTTPRequestHandler):
    payload = b""

    def do_GET(self):  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Type", "application/gzip")
        self.end_headers()
        self.wfile.write(self.payload)

    def log_message(self, *args):
        pass


def test_a_feed_url_is_fetched(client, run_jobs, settings_with):
    _FeedHandler.payload = gzip.compress((json.dumps(item("from-url", rank=99)) + "\n").encode())
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FeedHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        settings_with(supplier_feed=f"http://127.0.0.1:{server.server_port}/feed.jsonl.gz")
        body = discover(client)
    finally:
        server.shutdown()
    assert body["status"] == "ok", refused_run(body)
    assert [line.split()[1] for line in body["log"] if line.startswith("added ")] == ["from-url"]


def test_an_unreachable_feed_exits_1_and_changes_nothing(client, run_jobs, settings_with):
    settings_with(supplier_feed="http://127.0.0.1:9/feed.jsonl")
    body = discover(client)
    assert body["status"] == "refused" and body["exit_code"] == 1 and body["log"] == []
    assert len(body["stderr"]) == 1 and body["stderr"][0].startswith("discover: cannot fetch the feed")
    assert Product.select().count() == 0


def test_when_the_wait_ends_first_the_answer_is_running_and_the_run_can_be_polled(client, run_jobs, settings_with):
    settings_with(discover_wait_seconds=0)
    body = discover(client, q="desk mat")
    assert body["status"] == "running" and body["exit_code"] is None and body["job_id"]
    deadline = time.monotonic() + 60
    while body["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
        body = client.get(f"/api/discover?job_id={body['job_id']}").get_json()
    assert body["status"] == "ok", refused_run(body)
    assert body["query"] == "desk mat"
    assert client.get("/api/discover").get_json()["job_id"] == body["job_id"]


def test_another_sessions_run_or_an_unknown_one_is_not_found(client, founder, run_jobs):
    job_id = discover(client, q="desk mat")["job_id"]
    refusal(founder().get(f"/api/discover?job_id={job_id}"), 404, "not_found")
    refusal(client.get("/api/discover?job_id=nope"), 404, "not_found")


# --- The runner and the script ---------------------------------------------------------------

def test_the_runner_kills_a_script_past_its_time_limit():
    started = time.monotonic()
    run = run_capped([sys.executable, "-c", "import time; print('started', flush=True); time.sleep(30)"],
                     env={"PATH": "/usr/bin:/bin"}, timeout=1)
    assert time.monotonic() - started < 10
    assert run.timed_out and run.exit_code < 0 and run.stdout == ["started"]


def test_the_runner_caps_output_and_keeps_lines_as_written():
    code = "import sys; print('  indented  '); print(); print('x' * 100); sys.stderr.write('e1\\r\\n\\n e2\\n')"
    run = run_capped([sys.executable, "-c", code], env={"PATH": "/usr/bin:/bin"}, timeout=10)
    assert run.stdout == ["  indented  ", "x" * 100] and run.stderr == ["e1", " e2"] and not run.truncated
    flood = run_capped([sys.executable, "-c", "print('y' * 1_000_000)"], env={"PATH": "/usr/bin:/bin"}, timeout=10,
                       cap=1000)
    assert flood.truncated and flood.exit_code == 0 and len(flood.stdout[0]) == 1000


def test_the_script_never_loads_flask():
    probe = ("import runpy, sys\nsys.argv = ['scripts/discover.py', '--query=zzzz-no-match']\n"
             "try:\n    runpy.run_path('scripts/discover.py', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('flask', 'api', 'jobs', 'workers')))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=script_env(SETTINGS), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_the_bundled_feed_is_regenerated_byte_for_byte(tmp_path):
    out = tmp_path / "feed.jsonl.gz"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_supplier_feed.py"), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == BUNDLED.read_bytes()


def test_the_bundled_feed_is_a_few_thousand_varied_products_in_the_catalog_format():
    from services.catalog import parse_catalog

    products = parse_catalog([json.dumps(line) for line in bundled_lines() if "price" in line])
    assert 2000 <= len(products) <= 10000
    assert len({p["category"] for p in products}) >= 8
    assert len({p["name"] for p in products}) == len(products)
    assessed = [evidence_gate.assess(price=p["price"], cost=p["cost"], evidence_dates=[e["date"] for e in p["evidence"]],
                                     on=TODAY, gate=evidence_gate.current_gate()) for p in products]
    reasons = {a.why_not for a in assessed}
    assert {None, "thin_margin", "too_few_rows", "old_evidence"} <= reasons
    assert sum(a.clears for a in assessed) > len(products) / 2
    assert BUNDLED.stat().st_size < 1024 * 1024


def test_the_script_explains_a_missing_feed_in_one_line():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "discover.py"), "--today=2026-11-22",
                           "--feed=/no/such/place"], cwd=ROOT, env=script_env(SETTINGS), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip() == "discover: the feed /no/such/place does not exist"
