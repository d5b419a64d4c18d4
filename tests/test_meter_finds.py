"""The meter through a real metered route: a free account firing 100 concurrent finds."""
from models.account import Account, MeterUsage
from services.catalog import load_catalog_file
from tests.factories import DEMO_CATALOG as DEMO
from tests.helpers import in_threads
from tests.mailbox import sign_in_here


def test_a_free_account_firing_100_concurrent_finds_gets_exactly_limit_over_cost(founder, run_jobs):
    load_catalog_file(DEMO)
    signed_in = founder()
    sign_in_here(signed_in, run_jobs, "busy-finder@x.com")
    browsers = [founder() for _ in range(100)]
    for browser in browsers:  # 100 tabs of the signed-in browser: one cookie, one (free) account
        browser.set_cookie("ff_session", signed_in.get_cookie("ff_session").value)
    responses = in_threads(100, lambda i: browsers[i].get("/api/find"))
    statuses = [r.status_code for r in responses]
    # free tier: find costs 5 of 50 credits per 5 hours
    assert statuses.count(200) == 10 and statuses.count(429) == 90
    for response in responses:
        if response.status_code == 429:
            body = response.get_json()
            assert body["reason"] == "usage_limit_reached"
            assert (body["used"], body["limit"]) == (50, 50)
            assert "Retry-After" not in response.headers
    account = Account.get(Account.email == "busy-finder@x.com")
    row = MeterUsage.get(MeterUsage.account == account.id, MeterUsage.bucket == "find")
    assert (row.used_5h, row.used_week) == (50, 50)  # the week moved only for allowed calls
    usage = browsers[0].get("/api/usage").get_json()
    find = next(f for f in usage["features"] if f["feature"] == "find")
    assert (find["used_5h"], find["allowed"], find["exhausted_window"]) == (50, False, "5h")
