"""Reading the outbox the way a founder reads their inbox."""
from __future__ import annotations

import email
import re
from email import policy
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from tests.conftest import SETTINGS

LINK = re.compile(r"https?://\S+?token=[A-Za-z0-9_\-]+")


def messages_to(address: str) -> list:
    folder = Path(SETTINGS.outbox_dir)
    if not folder.exists():
        return []
    found = []
    for path in sorted(folder.glob("*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        if message["To"].lower() == address.lower():
            found.append(message)
    return found


def links_to(address: str) -> list[str]:
    links = []
    for message in messages_to(address):
        text = message.get_body(preferencelist=("plain",)).get_content()
        links.extend(LINK.findall(text))
    return links


def last_link(address: str, *, path: str | None = None) -> str:
    """The newest link mailed to the address (only links to `path`, when given)."""
    links = [link for link in links_to(address) if path is None or urlsplit(link).path == path]
    assert links, f"no sign-in link{' to ' + path if path else ''} was mailed to {address}"
    return links[-1]


def path_of(link: str) -> str:
    """The path and query of a mailed link, for the test client."""
    parts = urlsplit(link)
    return f"{parts.path}?{parts.query}"


def token_of(link: str) -> str:
    return parse_qs(urlsplit(link).query)["token"][0]


def sign_in_here(client, run_jobs, address: str) -> None:
    """Signs this browser in to `address` as a founder does: saves the address (created if new;
    a verified one is only sent a link), reads the mailed link and opens it in the same
    browser, which asked for it, so it signs in at once."""
    assert client.post("/api/account", json={"email": address}).status_code in (200, 409)
    run_jobs()
    location = client.get(path_of(last_link(address))).headers["Location"]
    assert location == "/?view=home#/app/home", location
    body = client.get("/api/account").get_json()
    assert body["account"] == address.lower() and body["verified"] is True


def text_of(message) -> str:
    """The plain-text part of a mail."""
    return message.get_body(preferencelist=("plain",)).get_content()


def html_of(message) -> str:
    """The HTML part of a mail."""
    return message.get_body(preferencelist=("html",)).get_content()
