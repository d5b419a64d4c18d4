"""The README starts where a newcomer starts (issue 23, point 9): the two commands, then the
app's address, the first journey in five steps and where the sign-in mail lands, operations
after that; it stands on its own (no path outside the repository), and its settings table
names every setting config.py reads."""
from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end != -1 else None]


def test_the_readme_opens_with_the_commands_then_the_first_journey_then_operations():
    headings = re.findall(r"^## (.+)$", README, flags=re.MULTILINE)
    assert headings[0] == "Start here", headings[:3]
    assert README.index("make run") < README.index("make test") < README.index("## Start here")
    start = section("Start here")
    assert "http://127.0.0.1:8000" in start
    steps = re.findall(r"^\d\. \*\*([^*]+)\*\*", start, flags=re.MULTILINE)
    assert steps == ["Find", "Claim", "Build", "Publish", "Test purchase"]
    assert "sandbox" in start and "outbox" in start and "var/outbox/" in start and "log" in start
    assert headings.index("Start here") < headings.index("Settings") < headings.index("Operating")


def test_the_readme_stands_on_its_own():
    # A path that leaves the checkout (../shared, an absolute path on a developer's machine).
    outside = re.findall(r"`\.\./[^`]+`|\]\(\.\./[^)]*\)|/work/\S+", README)
    assert outside == []
    assert "Interface Specification" in section("What the service is")


def test_the_settings_table_names_every_setting_config_reads():
    config = (ROOT / "config.py").read_text(encoding="utf-8")
    read = set(re.findall(r"""(?:env\.get\(|\(env, )"([A-Z][A-Z0-9_]+)\"""", config))
    table = set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \|", section("Settings"), flags=re.MULTILINE))
    assert len(read) > 40
    assert read - table == set()


def test_the_suite_reads_nothing_outside_the_repository():
    """A fresh clone's `make test` passes with nothing beside it: no test names a path above
    the checkout (the spec's endpoints are copied into tests/data/)."""
    leaving = re.compile(r"parent\.parent\.parent|/work/|\.\./shared")
    found = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "tests").rglob("*.py"))
             if path != Path(__file__).resolve()  # this file's patterns look for such paths
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if leaving.search(line) and not line.lstrip().startswith("#")]
    assert found == []
