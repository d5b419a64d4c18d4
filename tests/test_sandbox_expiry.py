"""The sandbox provider's checkouts expire from the clock (issue 22, point 6): an open
checkout past its day is expired by the clock's pass and its `checkout.expired`
notification is delivered once, through the path a paid one's takes, however many clocks
run the pass; reading the checkout before the pass (the hosted page, the state API) writes
nothing, though it already says expired and can no longer be paid."""
from __future__ import annotations

from datetime import timedelta

from jobs.payments import expire_sandbox_checkouts
from models.clock import utcnow
from models.job import Job
from models.payment import CustomerOrder, Payment, SandboxCheckout, SandboxNotification
from services.commerce.payments import CONFIRM_JOB
from services.commerce.sandbox_pages import NOTIFY_JOB
from tests.conftest import SETTINGS
from tests.factories import ADDRESS, path_of, payment_of, started
from tests.helpers import in_threads
from workers.clock import Every, schedule


def past_its_day(order: dict) -> str:
    checkout_id = payment_of(order["order_id"]).provider_ref
    SandboxCheckout.update(expires_at=utcnow() - timedelta(seconds=1)).where(
        SandboxCheckout.id == checkout_id).execute()
    return checkout_id


def test_an_open_checkout_past_its_day_is_expired_by_the_clock_and_notified_once(shop, founder, run_jobs,
                                                                                sandbox_wire):
    customer = founder()
    order = started(customer)
    fresh = started(customer)  # still within its day: the pass leaves it open
    checkout_id = past_its_day(order)

    page = customer.get(path_of(order["checkout_url"]))
    assert page.status_code == 200 and 'data-state="expired"' in page.get_data(as_text=True)
    assert customer.get(f"/pay/sandbox/v1/checkouts/{checkout_id}").get_json()["state"] == "expired"
    paid = customer.post(path_of(order["checkout_url"]), data={"action": "pay", **ADDRESS})
    assert paid.status_code == 303 and "/pay/back?payment=" in paid.headers["Location"]
    run_jobs()
    # The reads and the refused payment wrote nothing: the clock's pass is what expires it.
    assert SandboxCheckout.get_by_id(checkout_id).state == "open" and SandboxNotification.select().count() == 0
    assert CustomerOrder.get_by_id(order["order_id"]).state == "open" and sandbox_wire == []

    in_threads(4, lambda _i: expire_sandbox_checkouts.fn())  # as if four clocks fired the same slot
    run_jobs()

    assert SandboxCheckout.get_by_id(checkout_id).state == "expired"
    [notice] = SandboxNotification.select()
    assert (notice.checkout, notice.type, notice.delivered_at is not None) == (checkout_id, "checkout.expired", True)
    assert [(url, status) for url, _body, status in sandbox_wire] == [(SETTINGS.base_url + "/pay/notify", 200)]
    assert Job.select().where(Job.kind == NOTIFY_JOB).count() == 1
    assert Job.select().where(Job.kind == CONFIRM_JOB, Job.status == Job.DONE).count() == 1
    assert CustomerOrder.get_by_id(order["order_id"]).state == "expired"
    assert payment_of(order["order_id"]).state == Payment.EXPIRED
    assert CustomerOrder.get_by_id(fresh["order_id"]).state == "open"
    assert SandboxCheckout.get_by_id(payment_of(fresh["order_id"]).provider_ref).state == "open"

    expire_sandbox_checkouts.fn()  # the next pass finds nothing more to do
    run_jobs()
    assert SandboxNotification.select().count() == 1 and len(sandbox_wire) == 1


def test_the_clock_fires_the_sandbox_expiry_every_minute():
    entries = {entry.name: entry for entry in schedule(SETTINGS)}
    assert entries["expire_sandbox_checkouts"] == Every("expire_sandbox_checkouts", 60)
