"""tests/RELIABILITY.md maps each property of the reliability guide to the tests that prove
it: every test it names must exist (a file under tests/ defining that test function), so
the map cannot go on naming a test that was renamed or removed."""
import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
MAP = TESTS / "RELIABILITY.md"
NAMED = re.compile(r"\btests/([\w/]+\.py)::(test_\w+)")


def named_tests() -> list[tuple[str, str]]:
    return [(match[1], match[2]) for match in NAMED.finditer(MAP.read_text())]


def defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {node.name for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_")}


def test_every_test_the_reliability_map_names_exists():
    named = named_tests()
    assert len(named) > 50  # the map is read: a broken pattern must not pass on an empty list
    missing = []
    for file, test in named:
        path = TESTS / file
        if not path.is_file() or test not in defined_tests(path):
            missing.append(f"tests/{file}::{test}")
    assert missing == []


def test_every_table_row_names_a_test_or_says_it_has_none():
    rows = [line for line in MAP.read_text().splitlines()
            if line.startswith("| ") and not line.startswith(("| Property", "|---"))]
    assert rows
    unnamed = [row for row in rows if not NAMED.search(row) and "| none |" not in row]
    assert unnamed == []
