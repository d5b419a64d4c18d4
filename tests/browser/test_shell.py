"""Chromium opens the browser app's shell: the modules load and say the app is ready, no
console error or uncaught exception, axe-core passes on a desktop and a phone, and the
shell's content security policy blocks script injected into the page."""
import pytest

from api.webapp import APP_CSP

# First visits, straight to each route: `/` and the home screen's hash route.
ROUTES = {"root": "/", "home": "/#/app/home"}


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_shell_opens_ready_without_errors_and_passes_axe(open_app, viewport):
    for name, route in ROUTES.items():
        browser = open_app(viewport)  # a new founder per route: a hash change alone would not reload
        response = browser.goto(route)
        assert response.status == 200
        assert browser.page.evaluate("location.pathname + location.hash") == route
        browser.shot(name)


def test_the_answer_carries_the_apps_content_security_policy(open_app):
    response = open_app().goto("/")
    assert response.headers["content-security-policy"] == APP_CSP


def test_the_policy_blocks_an_injected_inline_event_handler(open_app):
    browser = open_app()
    browser.goto("/")
    # Chromium reports the blocked handler as a console error; it is the proof, so it is allowed.
    browser.allow_console(r"^Executing inline event handler violates the following Content Security Policy "
                          r"directive 'script-src 'self''")
    with browser.page.expect_console_message(lambda m: m.type == "error", timeout=5_000) as message:
        # `data:,` is an image that fails to decode: its error event fires without a request
        # (`src=x` would also log a 404 for /x). Listeners run in the order they were added,
        # so when ours runs, the inline handler has had its turn.
        fired = browser.page.evaluate("""() => new Promise(resolve => {
            document.body.insertAdjacentHTML('beforeend',
                '<img id="probe" alt="" src="data:," onerror="window.__pwned = 1">');
            document.getElementById('probe').addEventListener('error', () => resolve(true));
        })""")
        assert fired
        assert browser.page.evaluate("window.__pwned") is None, "the injected inline handler ran"
    assert message.value.text.startswith("Executing inline event handler violates the following Content Security")
