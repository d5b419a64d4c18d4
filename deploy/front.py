"""The buffering front of `make procs` (deploy/supervisord.conf, [program:front]).

Fills deploy/front.conf in (where to listen: the service's HOST and PORT; where gunicorn is:
127.0.0.1:WEB_PORT; the run folder: PROCS_RUN_DIR; the body of its 413, from the reasons
registry), writes it to PROCS_RUN_DIR/front.conf and becomes nginx on it. It replaces itself
(exec), so supervisord's signals reach nginx's master directly: SIGQUIT lets the requests in
progress finish, as a stop should.
"""
from __future__ import annotations

import grp
import json
import os
import pwd
import re
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from config import settings_or_exit  # noqa: E402
from logformat import BEARER_PATH_STARTS, CUT  # noqa: E402
from services.reasons import REASONS  # noqa: E402

TEMPLATE = HERE / "front.conf"
# Debian puts nginx in /usr/sbin, which a service user's PATH may not hold.
SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"])


def listen_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def nginx_string(text: str) -> str:
    """Text for a single-quoted nginx string: nginx would read a `$` as a variable."""
    if "$" in text:
        raise ValueError(f"a front answer cannot hold '$': {text!r}")
    return text.replace("\\", "\\\\").replace("'", "\\'")


def user_directive() -> str:
    """nginx's `user` line: the user and group of this process when it is root (nginx would
    otherwise switch its workers to `nobody`); none otherwise (nginx would ignore it)."""
    if os.geteuid() != 0:
        return ""
    return f"user {pwd.getpwuid(os.geteuid()).pw_name} {grp.getgrgid(os.getegid()).gr_name};"


# The front's own answers, by the name deploy/front.conf gives their body: each a refusal
# body of the app's shape with a registered reason and its sentence.
FRONT_REFUSALS = {"UNREADABLE": "invalid_json", "TOO_LARGE": "payload_too_large", "BUSY": "too_many_open_requests",
                  "UNAVAILABLE": "service_restarting"}


def refusal_body(reason: str) -> str:
    word = "error" if REASONS[reason].status >= 500 else "refused"
    return json.dumps({"status": word, "reason": reason, "explanation": REASONS[reason].sentence})


def bearer_path_pattern() -> str:
    """The front's regular expression (PCRE, in double quotes) for a path that holds a bearer
    value: the beginnings the app cuts from its own log lines (logformat.logged_path)."""
    starts = [re.escape(start) for start in BEARER_PATH_STARTS]
    if any('"' in start or "$" in start for start in starts):
        raise ValueError(f"a bearer path beginning cannot hold '\"' or '$': {BEARER_PATH_STARTS}")
    return "~^(?<bearer_route>" + "|".join(starts) + ")[^/]+(?<bearer_rest>.*)$"


def render(host: str, port: int, web_port: int, run_dir: Path) -> str:
    values = {"LISTEN": listen_address(host, port), "WEB_PORT": str(web_port), "RUN_DIR": str(run_dir),
              "USER": user_directive(), "BEARER_PATH": bearer_path_pattern(), "CUT": CUT,
              **{name: nginx_string(refusal_body(reason)) for name, reason in FRONT_REFUSALS.items()}}
    text = TEMPLATE.read_text()
    for name, value in values.items():
        text = text.replace(f"@{name}@", value)
    left = re.findall(r"@[A-Z_]+@", text)
    if left:
        raise ValueError(f"deploy/front.conf names {left} that deploy/front.py does not fill in")
    return text


def _fail(message: str) -> int:
    line = {"ts": time.strftime("%Y-%m-%dT%H:%M:%S"), "level": "error", "logger": "front", "msg": message}
    print(json.dumps(line), file=sys.stderr, flush=True)
    return 2


def main() -> int:
    settings = settings_or_exit()
    run_dir = Path(os.environ["PROCS_RUN_DIR"]).resolve()
    web_port = int(os.environ["WEB_PORT"])
    if web_port == settings.port:
        return _fail(f"WEB_PORT ({web_port}) must differ from PORT, where the front listens")
    nginx = shutil.which("nginx", path=SEARCH_PATH)
    if nginx is None:
        return _fail("nginx is not installed (Debian: apt-get install nginx); make procs serves through it")
    (run_dir / "front").mkdir(parents=True, exist_ok=True)
    conf = run_dir / "front.conf"
    conf.write_text(render(settings.host, settings.port, web_port, run_dir))
    # -e: where nginx writes before it has read the configuration (stderr, as supervisord expects).
    os.execv(nginx, [nginx, "-p", str(run_dir / "front"), "-c", str(conf), "-e", "stderr"])
    return 0  # not reached: nginx runs in this process now


if __name__ == "__main__":
    sys.exit(main())
