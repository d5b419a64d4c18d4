"""The web fetch seam: the one way the service reads a page someone else names (the store
audit of Fix fetches a founder's store, its links and its images through it).

A URL given by a stranger is a request to make from inside our network, so the fetcher
treats it as hostile (server-side request forgery): only http and https, only ports 80 and
443, no credentials in the URL, the host resolved once and every address it answers checked
to be public, the connection made to that checked address (never to the name again, which a
second DNS answer could point inward), each redirect checked the same way, and every
response bounded in time and size. Nothing the service holds (cookies, authorization,
the page it came from) is ever sent.

- `addresses.py`: what counts as a public address, and the refusal of odd spellings of
  addresses (decimal, octal, hex, short forms, zone ids). Pure, no network.
- `fetch.py`: `Fetcher` (`get`, `status_of`), `Response`, `fetcher_for(settings)`.

Errors of the seam, both `FetchError`s with `.reason` and `.url`:

- `FetchRefused`: refused before any connection was made (`bad_scheme`, `bad_port`,
  `credentials_in_url`, `odd_spelling`, `address_not_public`, `unresolvable`,
  `too_many_redirects`, `bad_url`).
- `FetchFailed`: a connection was made (or tried) and the exchange failed (`timeout`,
  `too_large`, `connection_failed`, `tls_failed`, `bad_response`).

Offline, the same code runs against local test servers named in `FIX_ALLOW_HOSTS`
(settings.fix_allow_hosts): an exemption from the address and port rules for exactly those
hosts, and from nothing else.
"""
from __future__ import annotations

# The seam's own reasons, in FetchRefused.reason and FetchFailed.reason. They are not the API's:
# a caller that shows one to people registers it in services/reasons.py with its sentence.
REFUSALS = ("bad_scheme", "bad_port", "credentials_in_url", "odd_spelling", "address_not_public",
            "unresolvable", "too_many_redirects", "bad_url")
FAILURES = ("timeout", "too_large", "connection_failed", "tls_failed", "bad_response")


class FetchError(Exception):
    """An error of the seam; `reason` names it and must be one of the subclass's `REASONS`."""

    REASONS: tuple[str, ...] = ()

    def __init__(self, reason: str, url: str = ""):
        if reason not in self.REASONS:
            raise ValueError(f"not a reason of the fetch seam: {reason!r}")
        super().__init__(f"{reason}: {url}" if url else reason)
        self.reason = reason
        self.url = url


class FetchRefused(FetchError):
    """The URL was refused before any connection was made; `reason` says which rule refused it."""

    REASONS = REFUSALS


class FetchFailed(FetchError):
    """A connection was made (or tried) and the exchange failed; `reason` says how."""

    REASONS = FAILURES
