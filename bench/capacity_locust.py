"""The capacity run's Locust file (`make capacity`, bench/capacity.py): bench/locustfile.py's
Founder and StoreVisitor, driven by a ramp of founders that does not wait for the service.

The ramp: `--start-founders` founders (with `--visitors-per-founder` store visitors each) from
the start, `--step-founders` more every `--step-seconds`, arriving `--arrival-rate` founders a
second (their visitors alongside), whatever the answers so far. Each step is a window: every
request that completed in it counts there. A window holds when no request failed in it and the
p99 of all its requests is at most `--p99-ms`; the first window that does not hold, or the
step after `--max-founders`, ends the run. Each window is written to `--steps-file` as one JSON
line (wall-clock start and end, founders and users, requests, failures, p50/p95/p99 over all
and per endpoint, held or not); bench/capacity.py reads them with the CPU it sampled.

With `--newcomers N`, N founders at a time also arrive, read the feed, claim, open the offer
and leave, the next in their place a few seconds later, all through the run: the feed and the
claim, asked once per founder of the ramp, then have hundreds of samples per window.

Each founder is a closed loop of its own (its journey, then a read every 1-3 s): the ramp is
open (founders keep arriving), a founder's own requests wait for their answers as a browser's do.
"""
from __future__ import annotations

import itertools
import json
import math
import sys
import time
from collections import defaultdict
from pathlib import Path

from locust import HttpUser, LoadTestShape, between, events, task
from urllib3 import PoolManager

sys.path.insert(0, str(Path(__file__).resolve().parent))
import locustfile as journey  # noqa: E402  (its users, imported as a module so Locust runs only the ones below)
from capacity_ramp import NEWCOMER_SECONDS, add_ramp_options  # noqa: E402


@events.init_command_line_parser.add_listener
def _options(parser):
    add_ramp_options(parser)
    parser.add_argument("--steps-file", default="capacity-steps.jsonl", help="where each window is written")


# 127.1.0.1, 127.1.0.2, ...: every address of 127.0.0.0/8 is this machine's loopback.
ADDRESSES = (f"127.1.{n // 250}.{n % 250 + 1}" for n in itertools.count())


class OwnAddress:
    """A user connects from a loopback address of its own, as each founder's browser comes from
    its own: the front lets one client address have 32 requests open at once (deploy/front.conf),
    and a ramp of users from one address meets that limit as one client long before the service
    is busy (429 too_many_open_requests at 25 founders and their visitors in a trial)."""

    def __init__(self, *args, **kwargs):
        self.pool_manager = PoolManager(source_address=(next(ADDRESSES), 0))  # HttpUser's own setting
        super().__init__(*args, **kwargs)


class RampFounder(OwnAddress, journey.Founder):
    fixed_count = 0  # by weight: one founder to every visitors-per-founder visitors
    weight = 1


class RampVisitor(OwnAddress, journey.StoreVisitor):
    weight = 2


class Newcomer(OwnAddress, HttpUser):
    """A founder arriving: reads the feed, claims the card it holds for them, opens the offer
    and leaves; the next founder takes their place (a new cookie jar, so a new session) after
    NEWCOMER_SECONDS. A founder asks for the feed and claims once, so the ramp's founders give
    those routes a few dozen samples a window, too few for a p99; `--newcomers` of these give
    them hundreds, as a service with founders coming and going would see."""

    fixed_count = 0  # set from --newcomers
    wait_time = between(*NEWCOMER_SECONDS)

    def on_start(self):
        self.client.headers["Origin"] = self.host.rstrip("/")

    @task
    def arrive(self):
        self.client.cookies.clear()  # a new founder's browser
        try:
            journey.claim_own_card(self.client)
        except journey.JourneyFailed:
            pass  # filed as a failure (the window does not hold); the next newcomer comes all the same


@events.init.add_listener
def _weights(environment, **_kwargs):
    options = environment.parsed_options
    if options is not None:
        RampVisitor.weight = max(1, options.visitors_per_founder)
        Newcomer.fixed_count = options.newcomers


def percentile(values: list[float], p: float) -> float:
    """Nearest rank: the smallest value with at least p % of the values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def figures(times: list[float]) -> dict:
    return {"requests": len(times), "p50_ms": round(percentile(times, 50), 1),
            "p95_ms": round(percentile(times, 95), 1), "p99_ms": round(percentile(times, 99), 1),
            "max_ms": round(max(times), 1)}


class Window:
    """The requests that completed during one step."""

    def __init__(self, step: int, founders: int, users: int):
        self.step, self.founders, self.users = step, founders, users
        self.started = time.time()
        self.times: dict[str, list[float]] = defaultdict(list)
        self.failures: dict[str, int] = defaultdict(int)
        self.errors: list[str] = []

    def add(self, name: str, response_time: float, exception) -> None:
        self.times[name].append(response_time)
        if exception is not None:
            self.failures[name] += 1
            if len(self.errors) < 5:
                self.errors.append(f"{name}: {str(exception)[:200]}")

    def close(self, p99_ms: float, users_now: dict) -> dict:
        ended = time.time()
        every = [t for times in self.times.values() for t in times]
        overall = figures(every) if every else {"requests": 0, "p50_ms": None, "p95_ms": None, "p99_ms": None,
                                                "max_ms": None}
        failed = sum(self.failures.values())
        held = bool(every) and failed == 0 and overall["p99_ms"] <= p99_ms
        return {"step": self.step, "founders": self.founders, "users": self.users, "users_running": users_now,
                "started": self.started, "ended": ended, "seconds": round(ended - self.started, 2),
                "rps": round(len(every) / (ended - self.started), 2), "failures": failed, "errors": self.errors,
                "held": held, **overall,
                "endpoints": {name: {**figures(times), "failures": self.failures.get(name, 0)}
                              for name, times in sorted(self.times.items())}}


WINDOW: list[Window] = []  # the open window (one Locust process, gevent: a plain list is safe)


@events.request.add_listener
def _record(request_type, name, response_time, exception=None, **_kwargs):
    if WINDOW:
        WINDOW[0].add(f"{request_type} {name}", response_time, exception)


class FounderRamp(LoadTestShape):
    """Steps of founders (and their visitors); stops at the first window that does not hold."""

    def __init__(self):
        super().__init__()
        self.founders = 0
        self.step_started = 0.0

    def _open(self, step: int, founders: int) -> None:
        options = self.runner.environment.parsed_options
        self.founders, self.step_started = founders, self.get_run_time()
        WINDOW[:] = [Window(step, founders, founders * (1 + options.visitors_per_founder) + options.newcomers)]

    def tick(self):
        options = self.runner.environment.parsed_options
        per_founder = 1 + options.visitors_per_founder
        if not WINDOW:
            self._open(0, options.start_founders)
        elif self.get_run_time() - self.step_started >= options.step_seconds:
            closed = WINDOW[0].close(options.p99_ms, dict(self.runner.user_classes_count))
            with open(options.steps_file, "a") as out:
                out.write(json.dumps(closed) + "\n")
            if not closed["held"] or self.founders + options.step_founders > options.max_founders:
                WINDOW.clear()
                return None
            self._open(closed["step"] + 1, self.founders + options.step_founders)
        newcomers = [Newcomer] if options.newcomers else []
        return (self.founders * per_founder + options.newcomers, options.arrival_rate * per_founder,
                [RampFounder, RampVisitor, *newcomers])
