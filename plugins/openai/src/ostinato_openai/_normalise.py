"""The pieces of a reply that call and stream parsing share, normalised the same way.

Finish reasons become ``stop``/``length``/``tool_calls``/``content_filter`` (the raw value
is kept under ``finish_reason_raw``); usage becomes :class:`~ostinato.model.Usage` with
cached prompt tokens as ``cache_read_input_tokens``; ``x-ratelimit-*`` headers become the
rate-limit mapping; text and reasoning are read from every field imitators use. Keeping
this in one place is what makes a stream's aggregate equal the call's result.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Mapping
from typing import Any, Final

from ostinato.model import FINISH_REASON_RAW, FinishReason, Usage

__all__ = [
    "FINISH_REASON_RAW",
    "JSON_OBJECT",
    "NATIVE_FINISH_REASON",
    "RATE_LIMIT_HEADERS",
    "REFUSAL",
    "arguments_text",
    "content_text",
    "finish_reason",
    "generated_call_id",
    "rate_limit",
    "reasoning_text",
    "reasoning_tokens",
    "response_extras",
    "usage_from",
    "usage_payload",
]

#: Generation metadata key: the upstream model's own finish reason (OpenRouter).
NATIVE_FINISH_REASON: Final = "native_finish_reason"
#: Generation metadata key: the model's refusal text, when it refused.
REFUSAL: Final = "refusal"

#: What ``isinstance`` checks JSON objects against: ``dict`` first, since ``json.loads``
#: makes dicts and the ``Mapping`` ABC check is several times slower.
JSON_OBJECT: Final = (dict, Mapping)

_FINISH_REASONS: dict[str, str] = {
    "stop": FinishReason.STOP,
    "eos": FinishReason.STOP,
    "end_turn": FinishReason.STOP,
    "stop_sequence": FinishReason.STOP,
    "length": FinishReason.LENGTH,
    "max_tokens": FinishReason.LENGTH,
    "model_length": FinishReason.LENGTH,
    "tool_calls": FinishReason.TOOL_CALLS,
    "function_call": FinishReason.TOOL_CALLS,
    "tool_use": FinishReason.TOOL_CALLS,
    "content_filter": FinishReason.CONTENT_FILTER,
}

#: The ``x-ratelimit-*`` headers read, and the rate-limit keys they become.
RATE_LIMIT_HEADERS: Final = {
    "x-ratelimit-limit-requests": ("requests_limit", int),
    "x-ratelimit-remaining-requests": ("requests_remaining", int),
    "x-ratelimit-reset-requests": ("requests_reset", "duration"),
    "x-ratelimit-limit-tokens": ("tokens_limit", int),
    "x-ratelimit-remaining-tokens": ("tokens_remaining", int),
    "x-ratelimit-reset-tokens": ("tokens_reset", "duration"),
}
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def finish_reason(raw: Any) -> str | None:
    """The normalised finish reason (an unknown one is kept, lower-cased)."""
    if not isinstance(raw, str) or not raw:
        return None
    return _FINISH_REASONS.get(raw.lower(), raw.lower())


def content_text(value: Any) -> str | None:
    """A message's or delta's ``content`` as text; ``None`` and ``""`` both mean none.

    Content given as a list of parts (some imitators) is joined from its text parts.
    """
    if isinstance(value, str):
        return value or None
    if isinstance(value, list):
        parts = [str(p["text"]) for p in value if isinstance(p, JSON_OBJECT) and p.get("text")]
        return "".join(parts) or None
    return None


def reasoning_text(message: Mapping[str, Any]) -> str | None:
    """Reasoning text from ``reasoning_content`` (DeepSeek, vLLM, llama.cpp) or ``reasoning``
    (Ollama, Groq, OpenRouter); ``None`` when absent or empty."""
    for key in ("reasoning_content", "reasoning"):
        value = message.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def arguments_text(value: Any) -> str:
    """Tool-call arguments as JSON text (some servers send an object, not a string)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def generated_call_id(response_id: str, choice: int, index: int) -> str:
    """A stable id for a tool call the server sent without one.

    The same response id, choice and position give the same id in ``call()`` and
    ``stream()``; without a response id a random one is used.
    """
    seed = response_id or uuid.uuid4().hex
    digest = hashlib.sha256(f"{seed}:{choice}:{index}".encode()).hexdigest()[:24]
    return f"call_{digest}"


def usage_payload(chunk: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The usage object of a body or chunk (top-level, else Groq's ``x_groq.usage``)."""
    usage = chunk.get("usage")
    if isinstance(usage, JSON_OBJECT):
        return usage
    extra = chunk.get("x_groq")
    if isinstance(extra, JSON_OBJECT) and isinstance(extra.get("usage"), JSON_OBJECT):
        inner: Mapping[str, Any] = extra["usage"]
        return inner
    return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_from(usage: Mapping[str, Any]) -> Usage:
    """:class:`Usage` from a usage object; the object itself is kept as native usage."""
    prompt_details = usage.get("prompt_tokens_details")
    cached = None
    written = None
    if isinstance(prompt_details, JSON_OBJECT):
        cached = _int(prompt_details.get("cached_tokens"))
        written = _int(prompt_details.get("cache_write_tokens"))
    if cached is None:
        cached = _int(usage.get("prompt_cache_hit_tokens"))  # DeepSeek
    return Usage(
        _int(usage.get("prompt_tokens")),
        _int(usage.get("completion_tokens")),
        _int(usage.get("total_tokens")),
        cached,
        written,
        dict(usage),
        reasoning_tokens(usage),
    )


def reasoning_tokens(usage: Mapping[str, Any] | None) -> int | None:
    """``completion_tokens_details.reasoning_tokens``, when reported."""
    if usage is None:
        return None
    details = usage.get("completion_tokens_details")
    if isinstance(details, JSON_OBJECT):
        return _int(details.get("reasoning_tokens"))
    return None


def response_extras(body: Mapping[str, Any]) -> dict[str, Any]:
    """Response metadata beyond id/model/usage: creation time, fingerprint, tier, vendor.

    ``None`` values are dropped by :class:`~ostinato.model.ChatResponseMetadata`.
    """
    usage = usage_payload(body)
    return {
        "created": _int(body.get("created")),
        "system_fingerprint": body.get("system_fingerprint"),
        "service_tier": body.get("service_tier"),
        "provider": body.get("provider"),
        "reasoning_tokens": reasoning_tokens(usage),
    }


def _duration(text: str) -> float | str:
    total = 0.0
    matched = 0
    for match in _DURATION_PART.finditer(text):
        total += float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        matched += len(match.group(0))
    if matched and matched == len(text):
        return total
    try:
        return float(text)
    except ValueError:
        return text


def rate_limit(headers: Mapping[str, str]) -> dict[str, Any]:
    """The ``x-ratelimit-*`` headers: limits and remaining as ints, resets in seconds."""
    result: dict[str, Any] = {}
    for header, (key, kind) in RATE_LIMIT_HEADERS.items():
        raw = headers.get(header)
        if raw is None:
            continue
        if kind == "duration":
            result[key] = _duration(raw.strip())
        else:
            try:
                result[key] = int(raw)
            except ValueError:
                result[key] = raw
    return result
