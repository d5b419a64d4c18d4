"""The openai backend: any OpenAI-compatible chat-completions server, hosted or local.

POST {AI_BASE_URL}/chat/completions with the model, a system and a user message, JSON
output asked for (response_format json_object) and a low temperature. The key, when set,
goes in an Authorization: Bearer header. Redirects are not followed: urllib would resend
that header to wherever a redirect points.

What a failure means to the caller (AIError.reason):
- the server cannot be reached (refused, unknown host, no route): cli_unavailable;
- it answered with an HTTP error (a 5xx, or a 4xx such as a wrong key or model), or took
  longer than AI_TIMEOUT_SECONDS: cli_failed;
- its answer has no message text, or the text is not JSON of the schema: InvalidOutput,
  which the caller retries once before giving up with invalid_ai_output.
"""
from __future__ import annotations

import json
import logging
import socket
import time
import urllib.error
import urllib.request
from http.client import HTTPException
from urllib.parse import urlsplit

from integrations.ai.errors import FAILED, UNAVAILABLE, AIError, InvalidOutput
from integrations.ai.prompts import Prompt

log = logging.getLogger("ai")

MAX_ANSWER_BYTES = 1024 * 1024
TEMPERATURE = 0.2


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # the 3xx answer reaches the caller as an HTTPError


_opener = urllib.request.build_opener(_NoRedirects)


def ask(prompt: Prompt, settings) -> str:
    """Sends the prompt to the chat-completions server and returns the message text it answered."""
    if not settings.ai_base_url or not settings.ai_model:
        raise AIError(UNAVAILABLE, "AI_BASE_URL and AI_MODEL must be set for the openai backend")
    url = settings.ai_base_url.rstrip("/") + "/chat/completions"
    server = urlsplit(url).netloc.rpartition("@")[2]
    body = json.dumps({
        "model": settings.ai_model,
        "messages": [{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}],
        "response_format": {"type": "json_object"},
        "temperature": TEMPERATURE,
    }).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if settings.ai_api_key:
        headers["Authorization"] = f"Bearer {settings.ai_api_key}"
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    raw = _post(request, server, settings.ai_timeout_seconds)
    return _message_text(raw)


def _post(request: urllib.request.Request, server: str, timeout: int) -> bytes:
    # urllib's timeout bounds each wait on the socket; the deadline bounds the whole answer,
    # so a server that drips bytes cannot hold a worker for ever.
    deadline = time.monotonic() + timeout
    try:
        with _opener.open(request, timeout=timeout) as response:
            chunks, size = [], 0
            while chunk := response.read(64 * 1024):
                size += len(chunk)
                if size > MAX_ANSWER_BYTES:
                    raise InvalidOutput(f"the answer is larger than {MAX_ANSWER_BYTES} bytes")
                if time.monotonic() > deadline:
                    raise AIError(FAILED, f"the AI server {server} took longer than {timeout} s")
                chunks.append(chunk)
            return b"".join(chunks)
    except urllib.error.HTTPError as exc:
        # The error body may echo the prompt: it goes to the debug log only.
        log.debug("ai server error body", extra={"fields": {"status": exc.code, "body": _peek(exc)}})
        raise AIError(FAILED, f"the AI server {server} answered HTTP {exc.code}") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, (TimeoutError, socket.timeout)):
            raise AIError(FAILED, f"the AI server {server} took longer than {timeout} s") from None
        raise AIError(UNAVAILABLE, f"the AI server {server} cannot be reached ({_why(exc.reason)})") from None
    except (TimeoutError, socket.timeout):
        raise AIError(FAILED, f"the AI server {server} took longer than {timeout} s") from None
    except (HTTPException, OSError) as exc:
        raise AIError(FAILED, f"the AI server {server} broke off its answer ({_why(exc)})") from None


def _message_text(raw: bytes) -> str:
    """The text of the first choice's message in a chat-completions answer."""
    try:
        answer = json.loads(raw)
        content = answer["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise InvalidOutput("the server's answer is not a chat completion") from None
    if not isinstance(content, str) or not content.strip():
        raise InvalidOutput("the chat completion has no message text")
    return content


def _peek(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read(500).decode("utf-8", "replace")
    except (OSError, HTTPException):
        return ""


def _why(reason) -> str:
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return type(reason).__name__ if not isinstance(reason, str) else reason[:80]
