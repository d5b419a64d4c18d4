"""Discovery: which product a session has, the holds and claims that decide it, the claim
allowance, and discovery runs. One module per concern:

- `resolver`   the one place that answers "which product is this session's" (`resolve`);
- `state`      what a find, feed or pass knows of its owner, read in one statement (the
               resolver's facts, the allowance, the held card, the milestones reached);
- `holds`      find and feed (serving and minting the session's hold), select, claim, pass;
- `cards`      a product as a card, the candidates an owner may be shown, why none are left;
- `allowance`  the claim allowance, and the share control that lifts it;
- `adoption`   a session's discovery rows becoming its account's when it is bound;
- `runs`       discovery runs (POST /api/discover per session, /api/discovery-research per
               account): the job, its answer, the script it runs.

Who a row belongs to is `services.ownership.Owner`. Every race is decided by the database
(a conditional upsert per product hold, a unique claim per product, a conditional allowance
counter): see `holds` and `allowance`.
"""
from services.discovery import adoption  # noqa: F401  (registers the adopter)
from services.discovery.allowance import (
                                      BASE_ALLOWANCE,
                                      MAX_SHARE_LIFTS,
                                      Allowance,
                                      allowance_of,
                                      claims,
                                      share,
)
from services.discovery.cards import card
from services.discovery.holds import (
                                      FEED_SIZE,
                                      HOLD_MINUTES,
                                      METER_BUCKET,
                                      PASSED,
                                      RESTORED,
                                      SELECTED,
                                      UNDO_PASS_SECONDS,
                                      claim,
                                      feed,
                                      find,
                                      pass_on,
                                      release_holds,
                                      select,
                                      undo_pass,
)
from services.discovery.resolver import CLAIMED, HELD, Resolved, resolve
from services.discovery.runs import (
                                      DISCOVER,
                                      DISCOVER_SCRIPT,
                                      MAX_QUERY_CHARS,
                                      NEVER_RUN,
                                      OUTPUT_CAP,
                                      RUN_STATES,
                                      RUNNING,
                                      STARTED,
                                      ScriptRun,
                                      account_runs,
                                      latest_run,
                                      run_answer,
                                      run_capped,
                                      run_of,
                                      run_report,
                                      run_script,
                                      script_argv,
                                      script_env,
                                      session_runs,
                                      start_discovery,
                                      start_report,
                                      wait_for_run,
)

__all__ = [
    "BASE_ALLOWANCE", "MAX_SHARE_LIFTS", "Allowance", "allowance_of", "claims", "share",
    "card",
    "FEED_SIZE", "HOLD_MINUTES", "METER_BUCKET", "PASSED", "RESTORED", "SELECTED", "UNDO_PASS_SECONDS", "claim", "feed", "find",
    "pass_on", "release_holds", "select", "undo_pass",
    "CLAIMED", "HELD", "Resolved", "resolve",
    "DISCOVER", "DISCOVER_SCRIPT", "MAX_QUERY_CHARS", "NEVER_RUN", "OUTPUT_CAP", "RUN_STATES", "RUNNING", "STARTED",
    "ScriptRun", "account_runs", "latest_run", "run_answer", "run_capped", "run_of", "run_report", "run_script",
    "script_argv", "script_env", "session_runs", "start_discovery", "start_report", "wait_for_run",
]
