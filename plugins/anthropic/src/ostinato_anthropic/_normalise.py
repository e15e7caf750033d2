"""The pieces of a reply that call and stream parsing share, normalised the same way.

Stop reasons become ``stop``/``length``/``tool_calls``/``content_filter`` (the raw value
is kept under ``finish_reason_raw``); usage becomes :class:`~ostinato.model.Usage` with
every input token counted as a prompt token (cache reads and writes included, as OpenAI
counts them) and the cache figures apart; ``anthropic-ratelimit-*`` headers become the
rate-limit mapping. Keeping this in one place is what makes a stream's aggregate equal
the call's result.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from ostinato.model import FINISH_REASON_RAW, FinishReason, Usage

__all__ = [
    "FINISH_REASON_RAW",
    "REASONING_SEPARATOR",
    "REQUEST_ID_HEADERS",
    "STOP_SEQUENCE",
    "THINKING_BLOCKS",
    "finish_reason",
    "input_json",
    "rate_limit",
    "request_id",
    "status_for_error_type",
    "thinking_block",
    "usage_from",
]

#: Generation metadata key: which stop sequence ended the answer.
STOP_SEQUENCE: Final = "stop_sequence"
#: Message metadata key: every thinking block of an answer that had more than one, or a
#: redacted one, exactly as received (sent back as they are).
THINKING_BLOCKS: Final = "thinking_blocks"
#: Joins the text of several thinking blocks in ``metadata["reasoning"]``.
REASONING_SEPARATOR: Final = "\n\n"
#: Response headers that carry the request id.
REQUEST_ID_HEADERS: Final = ("request-id", "x-request-id")

_FINISH_REASONS: dict[str, str] = {
    "end_turn": FinishReason.STOP,
    "stop_sequence": FinishReason.STOP,
    "max_tokens": FinishReason.LENGTH,
    "model_context_window_exceeded": FinishReason.LENGTH,
    "tool_use": FinishReason.TOOL_CALLS,
    "refusal": FinishReason.CONTENT_FILTER,
}
# The HTTP status each error type comes with, for errors reported inside a 200 stream.
_ERROR_STATUS: dict[str, int] = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
_RATE_LIMIT_PREFIX = "anthropic-ratelimit-"


def finish_reason(raw: Any) -> str | None:
    """The normalised finish reason (an unknown one, e.g. ``pause_turn``, is kept)."""
    if not isinstance(raw, str) or not raw:
        return None
    return _FINISH_REASONS.get(raw, raw)


def status_for_error_type(error_type: Any) -> int | None:
    """The HTTP status the API gives errors of ``error_type`` (``None`` when unknown)."""
    return _ERROR_STATUS.get(error_type) if isinstance(error_type, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_from(usage: Mapping[str, Any]) -> Usage:
    """:class:`Usage` from a usage object; the object itself is kept as native usage.

    Prompt tokens are ``input_tokens`` plus the cache reads and writes (Anthropic counts
    those apart; the sum is what the request read). A cache figure the API left out stays
    ``None``.
    """
    read = _int(usage.get("cache_read_input_tokens"))
    written = _int(usage.get("cache_creation_input_tokens"))
    prompt = (_int(usage.get("input_tokens")) or 0) + (read or 0) + (written or 0)
    completion = _int(usage.get("output_tokens")) or 0
    return Usage(prompt, completion, prompt + completion, read, written, dict(usage))


def _number(raw: str) -> int | str:
    try:
        return int(raw)
    except ValueError:
        return raw


def rate_limit(headers: Mapping[str, str]) -> dict[str, Any]:
    """The ``anthropic-ratelimit-*`` headers: ``requests_limit``, ``tokens_remaining``,
    ``input_tokens_reset``... (limits and remaining as ints, resets as RFC 3339 text)."""
    result: dict[str, Any] = {}
    for name, value in headers.items():
        lower = name.lower()
        if lower.startswith(_RATE_LIMIT_PREFIX):
            key = lower[len(_RATE_LIMIT_PREFIX) :].replace("-", "_")
            result[key] = value if key.endswith("_reset") else _number(value)
    return dict(sorted(result.items()))


def request_id(headers: Mapping[str, str]) -> str | None:
    """The request id the response headers carry."""
    return next((headers[h] for h in REQUEST_ID_HEADERS if headers.get(h)), None)


def input_json(value: Any) -> str:
    """A ``tool_use`` block's ``input`` object as the arguments' JSON text.

    Written with the spacing the API's own ``input_json_delta`` pieces have
    (``{"city": "Paris"}``), so that a call and a stream of the same answer agree.
    """
    if value is None:
        return "{}"
    return json.dumps(value, ensure_ascii=False)


def thinking_block(block: Mapping[str, Any]) -> dict[str, Any] | None:
    """A ``thinking`` or ``redacted_thinking`` block reduced to what is sent back."""
    kind = block.get("type")
    if kind == "thinking":
        return {
            "type": "thinking",
            "thinking": str(block.get("thinking") or ""),
            "signature": str(block.get("signature") or ""),
        }
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": str(block.get("data") or "")}
    return None
