"""The process definitions agree: the Procfile (honcho, development), deploy/supervisord.conf
(`make procs`, production) and deploy/systemd/ (hosts that use systemd) run the same command for
web, worker and clock; every program they name exists in a checkout after `make install` (the
virtualenv's, never one found on PATH); supervisord reads its configuration; a stop reaches a
worker as one SIGTERM and waits longer than the worker's shutdown time. `make procs` alone
also runs the buffering front (deploy/front.py, nginx on deploy/front.conf) before gunicorn,
which then listens on loopback only."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from config import ROOT, Settings

DEPLOY = ROOT / "deploy"
SYSTEMD = DEPLOY / "systemd"
PLACEHOLDER = "/opt/ff"  # the systemd units' WorkingDirectory: the checkout
PROGRAMS = ("web", "worker", "clock")


def procfile() -> dict[str, list[str]]:
    lines = (ROOT / "Procfile").read_text().splitlines()
    return {name.strip(): shlex.split(command) for name, _, command in (line.partition(":") for line in lines) if command}


def supervisord_options(tmp_path, worker_processes: int = 3):
    """deploy/supervisord.conf as supervisord itself reads it (its own options parser), with the
    environment `make procs` gives it."""
    from supervisor.options import ServerOptions

    environ = {"PROCS_RUN_DIR": str(tmp_path), "WORKER_PROCESSES": str(worker_processes), "WEB_PORT": "8001"}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in environ.items():
            patch.setenv(key, value)
        options = ServerOptions()  # reads the environment here
        options.realize(args=["-c", str(DEPLOY / "supervisord.conf")])
    return options


def supervisord_programs(tmp_path) -> dict[str, list]:
    """Each program's process configs by program name (the event listener apart)."""
    from supervisor.options import EventListenerPoolConfig

    return {group.name: group.process_configs for group in supervisord_options(tmp_path).process_group_configs
            if not isinstance(group, EventListenerPoolConfig)}


def unit(name: str) -> dict[str, dict[str, list[str]]]:
    """A systemd unit file: its sections, each key's values in order (a key may repeat)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current = None
    for raw in (SYSTEMD / name).read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


UNITS = {"web": "ff-web.service", "worker": "ff-worker@.service", "clock": "ff-clock.service"}


def _relative(argv: list[str], checkout: Path | str) -> list[str]:
    """The command with the checkout's absolute paths written relative to it."""
    prefix = os.path.normpath(checkout) + "/"
    return [arg[len(prefix):] if arg.startswith(prefix) else arg for arg in argv]


def test_the_procfile_runs_the_virtualenv_programs_from_a_fresh_clone():
    commands = procfile()
    assert set(commands) == set(PROGRAMS)
    assert commands == {
        "web": [".venv/bin/gunicorn", "-c", "gunicorn.conf.py", "api:create_app()"],
        "worker": [".venv/bin/python", "-m", "workers.worker"],
        "clock": [".venv/bin/python", "-m", "workers.clock"],
    }


def test_supervisord_and_systemd_run_the_procfile_commands(tmp_path):
    expected = procfile()
    programs = supervisord_programs(tmp_path)
    assert set(programs) == {*PROGRAMS, "front"}
    for name in PROGRAMS:
        for config in programs[name]:
            assert os.path.normpath(config.directory) == os.path.normpath(ROOT), config.directory
            argv = [os.path.normpath(arg) if arg.startswith("/") else arg for arg in shlex.split(config.command)]
            assert _relative(argv, ROOT) == expected[name], (name, config.command)
        service = unit(UNITS[name])["Service"]
        assert service["WorkingDirectory"] == [PLACEHOLDER]
        (exec_start,) = service["ExecStart"]
        assert _relative(shlex.split(exec_start), PLACEHOLDER) == expected[name], (name, exec_start)


def test_every_program_the_definitions_name_is_in_the_checkout_after_make_install():
    """`make install` makes .venv with requirements.txt: the programs the Procfile, supervisord
    and the units start, and supervisord itself, are there; the config and modules they load too."""
    named = set()
    for argv in procfile().values():
        named.add(argv[0])
        if "-c" in argv:
            named.add(argv[argv.index("-c") + 1])
        if "-m" in argv:
            named.add(argv[argv.index("-m") + 1].replace(".", "/") + ".py")
    # (honcho, which runs the Procfile in development, comes with `make install-dev`.)
    named |= {".venv/bin/supervisord", ".venv/bin/supervisorctl", "deploy/supervisord.conf", "deploy/front.py",
              "deploy/front.conf"}
    for path in sorted(named):
        assert (ROOT / path).exists(), f"{path} is not in the checkout (did `make install` run?)"
    assert re.search(r"^supervisor==\d", (ROOT / "requirements.txt").read_text(), re.M)
    makefile = (ROOT / "Makefile").read_text()
    assert "$(BIN)/supervisord -c deploy/supervisord.conf" in makefile
    assert re.search(r"^procs: .*seed", makefile, re.M)  # seed: migrate, then the catalog when it is empty


def test_supervisord_restarts_each_program_and_stops_a_worker_with_one_sigterm(tmp_path):
    import signal

    from supervisor.datatypes import RestartUnconditionally

    options = supervisord_options(tmp_path)
    assert options.nodaemon and options.silent  # `make procs` in the foreground, JSON lines only on stdout
    for path in (options.logfile, options.pidfile, options.serverurl.removeprefix("unix://")):
        assert Path(path).parent == tmp_path, path  # supervisord's own files in the run folder
    programs = supervisord_programs(tmp_path)
    workers = programs["worker"]
    assert [w.name for w in workers] == ["worker_1", "worker_2", "worker_3"]  # numprocs = WORKER_PROCESSES
    for name, configs in programs.items():
        for config in configs:
            assert config.autorestart is RestartUnconditionally, name  # whatever its exit status
            # nginx finishes the requests in progress on SIGQUIT (SIGTERM would cut them).
            assert config.stopsignal == (signal.SIGQUIT if name == "front" else signal.SIGTERM), name
            # One SIGTERM to the program's own process; never to its process group.
            assert config.stopasgroup is False, name
            # Its output goes to supervisord's stdout, never to a rotated file.
            assert config.redirect_stderr and config.stdout_logfile == "/dev/stdout", name
            assert config.stdout_logfile_maxbytes == 0, name
    for worker in workers:
        assert worker.stopwaitsecs > Settings.worker_shutdown_seconds
    (web,) = programs["web"]
    assert web.stopwaitsecs > 20  # gunicorn.conf.py's graceful_timeout


def test_supervisorctl_reads_the_same_socket(tmp_path):
    from supervisor.options import ClientOptions

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PROCS_RUN_DIR", str(tmp_path))
        patch.setenv("WORKER_PROCESSES", "2")
        options = ClientOptions()
        options.realize(args=["-c", str(DEPLOY / "supervisord.conf")])
    assert options.serverurl == f"unix://{tmp_path / 'supervisor.sock'}"


@pytest.mark.parametrize("name", sorted(UNITS.values()))
def test_each_systemd_unit_restarts_for_ever_and_signals_its_main_process(name):
    sections = unit(name)
    service = sections["Service"]
    assert service["Restart"] == ["always"]
    assert service["KillSignal"] == ["SIGTERM"]
    # SIGTERM to the main process only (gunicorn stops its workers; a worker drains while the
    # AI commands of its jobs go on); SIGKILL to the rest of the unit only after TimeoutStopSec.
    assert service["KillMode"] == ["mixed"]
    assert service["EnvironmentFile"] and service["WorkingDirectory"] == [PLACEHOLDER]
    assert sections["Unit"]["PartOf"] == ["ff.target"] and sections["Install"]["WantedBy"] == ["ff.target"]
    assert sections["Unit"]["StartLimitIntervalSec"] == ["0"]
    if name == "ff-worker@.service":
        assert int(service["TimeoutStopSec"][0]) > Settings.worker_shutdown_seconds


def test_the_target_groups_the_units():
    assert unit("ff.target")["Install"]["WantedBy"] == ["multi-user.target"]


def test_supervisords_process_events_come_out_as_json_lines(tmp_path):
    """The `events` listener (deploy/supervisor_events.py), spoken to as supervisord does: it
    says READY, reads a PROCESS_STATE_EXITED event, prints one JSON line (a crash: expected
    false), answers OK and is READY again."""
    import json
    import subprocess

    from supervisor.options import EventListenerPoolConfig

    (listener,) = [group for group in supervisord_options(tmp_path).process_group_configs
                   if isinstance(group, EventListenerPoolConfig)]
    (config,) = listener.process_configs
    argv = [os.path.normpath(arg) for arg in shlex.split(config.command)]
    assert _relative(argv, ROOT) == [".venv/bin/python", "deploy/supervisor_events.py"]
    assert config.stderr_logfile == "/dev/stdout" and config.autorestart
    payload = "processname:worker_1 groupname:worker from_state:RUNNING expected:0 pid:4242"
    header = f"ver:3.0 server:supervisor serial:1 pool:events poolserial:1 eventname:PROCESS_STATE_EXITED len:{len(payload)}\n"
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), str(DEPLOY / "supervisor_events.py")],
                          input=header + payload, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0
    assert done.stdout == "READY\nRESULT 2\nOKREADY\n"
    (line,) = done.stderr.splitlines()
    event = json.loads(line)
    assert (event["logger"], event["program"], event["state"], event["expected"], event["pid"], event["level"]) == \
        ("supervisord", "worker_1", "exited", False, 4242, "warning")


def test_make_procs_without_redis_is_refused_before_anything_runs(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "MAKEFLAGS", "MAKELEVEL")}
    done = subprocess.run(["make", "procs", f"PROCS_RUN_DIR={tmp_path}/run"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "set REDIS_URL" in done.stderr
    assert not (tmp_path / "run").exists()  # refused before the migration or supervisord


def test_make_procs_serves_through_the_front_and_gunicorn_behind_it_on_loopback_only(tmp_path):
    """The front starts after the other programs and stops before them; gunicorn is told to
    listen on 127.0.0.1:WEB_PORT; the configuration deploy/front.py writes is one nginx
    accepts (`nginx -t`), listening on HOST:PORT and passing requests to gunicorn there;
    its 413 is the registered refusal; CI installs nginx."""
    import json
    import sys

    from services.reasons import REASONS

    programs = supervisord_programs(tmp_path)
    (front,) = programs["front"]
    argv = [os.path.normpath(arg) for arg in shlex.split(front.command)]
    assert _relative(argv, ROOT) == [".venv/bin/python", "deploy/front.py"]
    assert all(front.priority > config.priority for name in PROGRAMS for config in programs[name])
    (web,) = programs["web"]
    assert web.environment["GUNICORN_CMD_ARGS"] == "--bind=127.0.0.1:8001"

    sys.path.insert(0, str(DEPLOY))
    try:
        import front as front_module
    finally:
        sys.path.remove(str(DEPLOY))
    (tmp_path / "front").mkdir()
    conf = tmp_path / "front.conf"
    conf.write_text(front_module.render("0.0.0.0", 8000, 8001, tmp_path))
    text = conf.read_text()
    assert "listen 0.0.0.0:8000;" in text and "proxy_pass http://127.0.0.1:8001;" in text
    assert front_module.listen_address("::", 8000) == "[::]:8000"
    (too_large,) = re.findall(r"return 413 '(.*)';", text)
    assert json.loads(too_large) == {"status": "refused", "reason": "payload_too_large",
                                     "explanation": REASONS["payload_too_large"].sentence}
    checked = subprocess.run(["nginx", "-t", "-p", str(tmp_path / "front"), "-c", str(conf), "-e", "stderr"],
                             capture_output=True, text=True, timeout=30,
                             env={**os.environ, "PATH": front_module.SEARCH_PATH})
    assert checked.returncode == 0, checked.stderr
    assert re.search(r"^apt-get install .*\bnginx\b", (ROOT / ".ci" / "run").read_text(), re.M)


def test_make_procs_loads_the_catalog_when_it_is_empty_before_serving():
    """A fresh deploy serves founders: `make procs` migrates, then seeds the demo catalog (or
    CATALOG_PATH) when the catalog is empty, as `make run` does, and only then starts the
    processes (a dry run of make: the order of its commands)."""
    env = {**os.environ, "REDIS_URL": "redis://127.0.0.1:6379/0", "MAKEFLAGS": ""}
    shown = subprocess.run(["make", "-n", "-B", "procs"], cwd=ROOT, env=env, capture_output=True, text=True,
                           check=True).stdout
    upgrade, seed, serve = (shown.find("db upgrade"), shown.find("catalog seed"), shown.find("supervisord -c"))
    assert -1 < upgrade < seed < serve, shown
