"""supervisord's process events as JSON lines (deploy/supervisord.conf, [eventlistener:events]).

supervisord's own log (started, exited, gave up) stays in its run folder, so that what `make
procs` prints is the programs' JSON lines only. This listener puts the events an operator acts on
into that same stream, one JSON line each, shaped like the service's own (config.JsonLogFormatter):
a program starting, running, exiting (`expected` false for a crash, as after kill -9), backing
off, given up (FATAL) or stopped.

The listener protocol (supervisor's docs, "Events"): it says READY on stdout, reads one header
line and the payload it announces from stdin, answers RESULT on stdout; its own lines go to
stderr, which supervisord sends to its stdout. The standard library only: it runs before
anything else of the service has to work.
"""
from __future__ import annotations

import json
import sys
import time

LEVELS = {"PROCESS_STATE_FATAL": "error", "PROCESS_STATE_BACKOFF": "warning"}


def parse(line: str) -> dict[str, str]:
    return dict(token.split(":", 1) for token in line.split() if ":" in token)


def event_line(event: str, payload: dict[str, str]) -> dict:
    state = event.removeprefix("PROCESS_STATE_").lower()
    name = payload.get("processname", "?")
    line = {"ts": time.strftime("%Y-%m-%dT%H:%M:%S"), "level": LEVELS.get(event, "info"), "logger": "supervisord",
            "msg": f"{name} {state}", "program": name, "group": payload.get("groupname"), "state": state,
            "from_state": payload.get("from_state", "").lower() or None}
    if "pid" in payload:
        line["pid"] = int(payload["pid"])
    if event == "PROCESS_STATE_EXITED":
        line["expected"] = payload.get("expected") == "1"
        if not line["expected"]:
            line["level"] = "warning"
    return line


def main() -> int:
    stdin, stdout = sys.stdin, sys.stdout
    while True:
        stdout.write("READY\n")
        stdout.flush()
        header_line = stdin.readline()
        if not header_line:
            return 0  # supervisord is gone
        header = parse(header_line)
        body = stdin.read(int(header.get("len", 0)))
        event = header.get("eventname", "")
        payload_line, _, _ = body.partition("\n")
        if event.startswith("PROCESS_STATE_"):
            sys.stderr.write(json.dumps(event_line(event, parse(payload_line))) + "\n")
            sys.stderr.flush()
        stdout.write("RESULT 2\nOK")
        stdout.flush()


if __name__ == "__main__":
    raise SystemExit(main())
