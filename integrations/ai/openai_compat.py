"""The openai backend: any OpenAI-compatible chat-completions server, hosted or local,
through the `openai` SDK.

One chat completion at {AI_BASE_URL}/chat/completions with the model, a system and a user
message, JSON output asked for (response_format json_object) and a low temperature. The
client is made with `base_url`, `timeout` (AI_TIMEOUT_SECONDS for each phase: connecting,
and each wait for bytes) and `max_retries=0`: retrying is the job's decision, under the
seam's one policy (integrations/ai/__init__.py). The key, when set, goes in an
Authorization: Bearer header; without one the header is left out (a local server needs
none). Redirects are not followed: the header would go to wherever one points.

What a failure means to the caller (AIError.reason):
- the server cannot be reached (refused, unknown host, no route): UNAVAILABLE;
- it answered with an HTTP error (a 5xx, or a 4xx such as a wrong key or model, or a
  3xx), broke off its answer, or took longer than AI_TIMEOUT_SECONDS: FAILED;
- its answer has no message text, or the text is not one JSON object: InvalidOutput,
  which the seam asks again once before giving up with INVALID_OUTPUT.
"""
from __future__ import annotations

import logging
from urllib.parse import urlsplit

import httpx2
import openai

from integrations.ai import prompts
from integrations.ai.errors import FAILED, UNAVAILABLE, AIError, InvalidOutput
from integrations.ai.task import Task

log = logging.getLogger("ai")
# The SDK logs each request's options (the prompt) at DEBUG and its transport each URL (which
# may carry a user and password) at INFO: neither may reach our logs, at any LOG_LEVEL.
for _chatty in ("openai", "httpx2", "httpcore2"):
    logging.getLogger(_chatty).setLevel(logging.WARNING)

MAX_ANSWER_CHARS = 1024 * 1024
TEMPERATURE = 0.2
# The SDK insists on a key; with none configured this stands in and the header is omitted.
_NO_KEY = "no-key"


class OpenAIBackend:
    """Asks an OpenAI-compatible chat-completions server for the task's object."""

    name = "openai"

    def __init__(self, settings):
        self.settings = settings

    def write(self, task: Task) -> dict:
        return prompts.answer_object(self.ask(prompts.build(task)))

    def ask(self, prompt: prompts.Prompt) -> str:
        """The message text the server answered to the prompt."""
        settings = self.settings
        if not settings.ai_base_url or not settings.ai_model:
            raise AIError(UNAVAILABLE, "AI_BASE_URL and AI_MODEL must be set for the openai backend")
        server = urlsplit(settings.ai_base_url).netloc.rpartition("@")[2]
        timeout = settings.ai_timeout_seconds
        client = openai.OpenAI(base_url=settings.ai_base_url.rstrip("/"), api_key=settings.ai_api_key or _NO_KEY,
                               timeout=timeout, max_retries=0,
                               http_client=openai.DefaultHttpxClient(follow_redirects=False))
        try:
            with client:
                completion = client.chat.completions.create(
                    model=settings.ai_model, temperature=TEMPERATURE, response_format={"type": "json_object"},
                    messages=[{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}],
                    extra_headers={} if settings.ai_api_key else {"Authorization": openai.omit})
        except openai.APITimeoutError:
            raise AIError(FAILED, f"the AI server {server} took longer than {timeout} s") from None
        except openai.APIConnectionError as exc:
            if isinstance(exc.__cause__, httpx2.ConnectError):
                raise AIError(UNAVAILABLE, f"the AI server {server} cannot be reached ({_why(exc.__cause__)})") from None
            raise AIError(FAILED, f"the AI server {server} broke off its answer ({_why(exc.__cause__)})") from None
        except openai.APIStatusError as exc:
            # The error body may echo the prompt: it goes to the debug log only.
            log.debug("ai server error body", extra={"fields": {"status": exc.status_code,
                                                                "body": exc.response.text[:500]}})
            raise AIError(FAILED, f"the AI server {server} answered HTTP {exc.status_code}") from None
        except (openai.APIResponseValidationError, ValueError):  # a body that is no JSON, or not of a completion
            raise InvalidOutput("the server's answer is not a chat completion") from None
        return _message_text(completion)


def _message_text(completion) -> str:
    """The text of the first choice's message in a chat-completions answer."""
    try:
        content = completion.choices[0].message.content
    except (AttributeError, IndexError, TypeError):
        raise InvalidOutput("the server's answer is not a chat completion") from None
    if not isinstance(content, str) or not content.strip():
        raise InvalidOutput("the chat completion has no message text")
    if len(content) > MAX_ANSWER_CHARS:
        raise InvalidOutput(f"the answer is longer than {MAX_ANSWER_CHARS} characters")
    return content


def _why(reason) -> str:
    text = str(reason) if reason is not None else ""
    return text[:80] or type(reason).__name__
