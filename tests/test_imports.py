"""The direction of imports (architecture guide): api -> services, jobs -> services -> models,
integrations. Routes and actors call services: no model, mail or other integration import
in api/, and none in the actors of jobs/ (only the runner and the send helper, which are
the job machinery itself, touch the job rows and locks)."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FORBIDDEN = {
    "api": {"models", "integrations", "workers"},
    "services": {"flask", "api", "jobs", "workers"},
    "models": {"flask", "api", "jobs", "workers", "services", "integrations"},
    "integrations": {"flask", "api", "jobs", "workers", "services"},
    "workers": {"flask", "api", "jobs"},
    "jobs": {"flask", "api"},
}
# Actors call a service and nothing else of the domain.
ACTOR_FORBIDDEN = {"models", "integrations"}
JOB_MACHINERY = {"runner.py", "send.py", "__init__.py"}


def _imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0]


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_point_one_way(package):
    wrong = {}
    for path in (ROOT / package).rglob("*.py"):
        bad = set(_imports(path)) & FORBIDDEN[package]
        if bad:
            wrong[str(path.relative_to(ROOT))] = sorted(bad)
    assert wrong == {}


def test_actors_call_services_only():
    wrong = {}
    for path in (ROOT / "jobs").glob("*.py"):
        if path.name in JOB_MACHINERY:
            continue
        bad = set(_imports(path)) & ACTOR_FORBIDDEN
        if bad:
            wrong[path.name] = sorted(bad)
    assert wrong == {}


def test_the_direction_check_reads_imports(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import models.db\nfrom integrations.mail import get_mailer\nfrom .x import y\n")
    assert set(_imports(sample)) == {"models", "integrations"}


def test_jobs_package_sets_the_broker_before_declaring_actors():
    tree = ast.parse((ROOT / "jobs" / "__init__.py").read_text())
    first_import = next(n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)))
    assert isinstance(first_import, ast.Import) and first_import.names[0].name == "workers.broker"


def _desk_imports(path) -> set[str]:
    """The desk modules `path` imports, at the top or inside a function, by their file stem."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "services.desk":
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("services.desk."):
            found.add(node.module.rsplit(".", 1)[1])
    return found


def test_the_desk_modules_import_one_another_one_way():
    """The agent replies through replies.py and the desk's actions call the agent: no module of
    services/desk reaches itself again through the others (an import inside a function counts)."""
    desk = ROOT / "services" / "desk"
    graph = {path.stem: _desk_imports(path) for path in desk.glob("*.py") if path.stem != "__init__"}
    circles = []
    for start in graph:
        seen, todo = set(), list(graph[start])
        while todo:
            name = todo.pop()
            if name not in seen and name in graph:
                seen.add(name)
                todo.extend(graph[name])
        if start in seen:
            circles.append(start)
    assert circles == []


# --- Test modules share fixtures and factories, not each other -------------------------------

def _is_test_module(name: str) -> bool:
    return any(part.startswith("test_") for part in name.split("."))


def _imported_modules(path):
    """Every module an import in `path` names, `from tests import test_x` counted as tests.test_x."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


def test_no_test_module_imports_another():
    """A test module that imports another also imports its fixtures (a fixture is found by name
    in the module that uses it), so what a test sees would hang on its module's imports; and a
    helper that lives in a test module is hard to find. Shared builders live in tests/factories.py
    and tests/stand_ins.py, shared fixtures in tests/conftest.py."""
    wrong = {}
    for path in (ROOT / "tests").rglob("*.py"):
        bad = sorted({name for name in _imported_modules(path) if _is_test_module(name)})
        if bad:
            wrong[str(path.relative_to(ROOT))] = bad
    assert wrong == {}


def test_the_test_module_check_reads_every_spelling(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from tests.test_store import built\nfrom tests import test_discovery\nimport tests.test_mail\n"
                      "from .test_accounts import save\nfrom tests.factories import item\n"
                      "def f():\n    from tests.browser.test_journey import x\n")
    assert sorted(name for name in _imported_modules(sample) if _is_test_module(name)) == [
        ".test_accounts", ".test_accounts.save", "tests.browser.test_journey", "tests.browser.test_journey.x",
        "tests.test_discovery", "tests.test_mail", "tests.test_store", "tests.test_store.built"]
