"""The capacity run's ramp options, declared once for bench/capacity.py (which passes them on)
and bench/capacity_locust.py (Locust's parser, which reads them); no Locust import here."""

RAMP = {  # option: (type, default, help)
    "start-founders": (int, 10, "founders in the first step"),
    "step-founders": (int, 10, "founders added each step"),
    "step-seconds": (float, 20.0, "length of a step (its window)"),
    "max-founders": (int, 150, "the ramp ends after this step"),
    "visitors-per-founder": (int, 2, "store visitors per founder"),
    "arrival-rate": (float, 1.0, "founders arriving a second in a step (their visitors alongside)"),
    "newcomers": (int, 0, "founders at a time who each read the feed, claim their card, open the offer and leave, "
                          "the next arriving after NEWCOMER_SECONDS (feed and claim, once per founder, get hundreds "
                          "of samples a window)"),
    "p99-ms": (float, 500.0, "a window holds while the p99 of its requests is at most this (and none failed)"),
}


NEWCOMER_SECONDS = (2.0, 6.0)  # a newcomer's successor arrives this long after it left (uniform)


def claims_at_most(args) -> int:
    """The claims a ramp can make: one per founder, and one per newcomer every NEWCOMER_SECONDS
    at the shortest over every step (bench/capacity.py gives the catalog that many products)."""
    steps = max(0, args.max_founders - args.start_founders) // max(1, args.step_founders) + 1
    return args.max_founders + int(args.newcomers * steps * args.step_seconds / NEWCOMER_SECONDS[0])


def add_ramp_options(parser) -> None:
    for name, (kind, default, meaning) in RAMP.items():
        parser.add_argument(f"--{name}", type=kind, default=default, help=meaning)


def ramp_arguments(args) -> list[str]:
    """The ramp's options as given to this run, for Locust's command line."""
    return [part for name in RAMP for part in (f"--{name}", str(getattr(args, name.replace("-", "_"))))]
