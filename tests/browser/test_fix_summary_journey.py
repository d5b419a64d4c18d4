"""The Fix screen and the report mail say the same thing (issue 48.4 and 48.5), in Chromium on a
desktop and on a phone: a signed-in founder checks a store elsewhere (a small site on this
machine with known defects) and asks for the report at their own address. The screen's
subtitle says the store was checked (nothing was put on the store), its one sentence is the
run's summary sentence word for word, the score after is called expected (it is what the
corrected pages score, not one the store has), and the mailed report says that same sentence
and those same scores, never "repaired 0"."""
from __future__ import annotations

import html as html_module
import re
import time

import pytest

from tests.browser.steps import MEASURE, TOUCH_PX, api_answer, fix_run_done, sign_in_by_link
from tests.fix_site import Site
from tests.mailbox import html_of, messages_to, text_of

# What a founder never reads on a screen: routes, the answer's field names, machine times.
NOT_FOUNDER_WORDS = re.compile(r"/api/|\b[a-z]+(?:_[a-z]+)+\b|\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")

WORDS_BUT_CODE = """() => {
  const main = document.querySelector("main").cloneNode(true);
  main.querySelectorAll("pre").forEach((box) => box.remove());
  return main.textContent;
}"""


@pytest.fixture
def store_elsewhere(settings_with):
    with Site() as running:
        settings_with(fix_allow_hosts=running.allow)
        yield running


def report_mail(address: str, *, seconds: float = 30.0):
    """The report mail, once the job that sends it has run."""
    deadline = time.monotonic() + seconds
    while True:
        mails = [m for m in messages_to(address) if "store check is ready" in m["Subject"]]
        if mails:
            assert len(mails) == 1
            return mails[0]
        assert time.monotonic() < deadline, "the report was not mailed"
        time.sleep(0.2)


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_the_fix_screen_says_what_the_report_mail_says(open_app, store_elsewhere, width):
    app = open_app(width)
    address = f"fixsum-{width}@example.com"
    sign_in_by_link(app, address, new=True)
    page, token = fix_run_done(app, store_elsewhere.origin + "/", email=address)
    run = api_answer(app, f"/api/fix/mine?token={token}")["run"]
    said = run["summary"]
    assert said["repaired"] == 0 and said["ready"] > 0 and said["score_after_measured"] is False

    # The subtitle: checked, not repaired (no repair was put on the store).
    assert page.locator("main p.lede").inner_text() == "Your store, checked." == said["headline"]
    # The one sentence, and the scores with the one after called expected.
    assert page.locator("main [data-summary]").inner_text() == said["sentence"]
    expected = page.locator("main [data-score-sentence=expected]")
    assert expected.inner_text() == said["score_sentence"]
    assert "expect" in said["score_sentence"]
    main = page.locator("main").inner_text()
    assert "repaired 0" not in main and "checked and repaired" not in main
    # The screen's own words (the repairs' code, in its boxes, is the page's HTML, not ours).
    words = page.evaluate(WORDS_BUT_CODE)
    found = NOT_FOUNDER_WORDS.search(words)
    assert not found, found.group(0)
    if app.viewport == "phone":
        assert page.evaluate(MEASURE, [TOUCH_PX]) == []
    app.shot("fix-summary")

    # The mailed report: the same sentence and scores, in both its parts.
    mail = report_mail(address)
    for part in (flat(text_of(mail)), flat(html_module.unescape(html_of(mail)))):
        assert said["sentence"] in part and said["score_sentence"] in part
        assert "repaired 0" not in part and "wrote repairs for 0" not in part
    assert mail["Subject"] == (f"Your store check is ready: {said['found']} things found, {said['ready']} repairs "
                               "ready to use")
