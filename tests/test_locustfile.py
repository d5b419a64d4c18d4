"""bench/locustfile.py (`make load`) stays in step with the app: it imports, every route it
names is one the app serves with that method, the paths it builds reach that route, and it
sends no request but through its Endpoint table. The load itself is not run here.

Locust patches the standard library with gevent's when it is imported, so the locustfile is
imported in a child process of its own and reports its table as JSON."""
import ast
import json
import subprocess
import sys
from pathlib import Path

from werkzeug.exceptions import MethodNotAllowed, NotFound

ROOT = Path(__file__).resolve().parent.parent
LOCUSTFILE = ROOT / "bench" / "locustfile.py"
HTTP_CALLS = {"get", "post", "put", "patch", "delete", "head", "options", "request"}

REPORT = """
import json, re
from bench import locustfile
samples = {"filename": "storefront/store.css"}
print(json.dumps({
    "users": sorted(name for name in ("Founder", "StoreVisitor") if hasattr(locustfile, name)),
    "endpoints": [{"method": e.method, "rule": e.rule, "name": e.name,
                   "path": e.path(**{p: samples.get(p, "x1") for p in re.findall(r"<(?:[a-z]+:)?([a-z_]+)>", e.rule)})}
                  for e in locustfile.Endpoint.registry]}))
"""


def locustfile_table() -> dict:
    done = subprocess.run([sys.executable, "-c", REPORT], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def unserved(endpoints, app) -> list:
    """Endpoints whose built path does not reach their own rule with their method."""
    adapter = app.url_map.bind("localhost")
    wrong = []
    for endpoint in endpoints:
        try:
            rule, _ = adapter.match(endpoint["path"], method=endpoint["method"], return_rule=True)
        except (NotFound, MethodNotAllowed) as refused:
            wrong.append((endpoint["method"], endpoint["rule"], type(refused).__name__))
            continue
        if rule.rule != endpoint["rule"]:
            wrong.append((endpoint["method"], endpoint["rule"], rule.rule))
    return wrong


def test_every_route_the_locustfile_names_is_served_by_the_app(app):
    table = locustfile_table()
    assert table["users"] == ["Founder", "StoreVisitor"]
    endpoints = table["endpoints"]
    assert len(endpoints) >= 20 and len({e["name"] + e["method"] for e in endpoints}) == len(endpoints)
    assert unserved(endpoints, app) == []
    # The check refuses a route the app does not have, and a method a route does not take.
    assert unserved([{"method": "GET", "rule": "/api/nowhere", "path": "/api/nowhere"},
                     {"method": "DELETE", "rule": "/api/store", "path": "/api/store"}], app) == [
        ("GET", "/api/nowhere", "NotFound"), ("DELETE", "/api/store", "MethodNotAllowed")]


def stray_requests(source: str) -> list[str]:
    """HTTP calls on a client made outside the Endpoint class (they would escape the table)."""
    tree = ast.parse(source)
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Endpoint":
            inside |= {id(child) for child in ast.walk(node)}
    return [ast.unparse(node) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in HTTP_CALLS
            and ast.unparse(node.func.value).split(".")[-1] in ("client", "customer") and id(node) not in inside]


def test_the_locustfile_sends_every_request_through_its_endpoint_table():
    assert stray_requests(LOCUSTFILE.read_text()) == []
    assert stray_requests("class Founder:\n    def go(self):\n        self.client.get('/api/x', name='x')\n") == [
        "self.client.get('/api/x', name='x')"]
