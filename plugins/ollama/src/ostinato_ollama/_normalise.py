"""The pieces of a reply normalised the same way for calls and streams.

``done_reason`` becomes ``stop``/``length`` (``tool_calls`` when the answer holds tool
calls: Ollama still says ``stop`` then), the raw value kept under ``finish_reason_raw``;
``prompt_eval_count``/``eval_count`` become :class:`~ostinato.model.Usage`; tool calls get
their server id, or a stable one made from the reply when the server sent none.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final

from ostinato.messages import ToolCall
from ostinato.model import FINISH_REASON_RAW, FinishReason, Usage

__all__ = [
    "CREATED_AT",
    "FINISH_REASON_RAW",
    "arguments_text",
    "finish_reason",
    "generated_call_id",
    "tool_call",
    "usage_from",
]

#: Response metadata key: the server's ``created_at`` timestamp (RFC 3339 text).
CREATED_AT: Final = "created_at"

_FINISH_REASONS = {"stop": FinishReason.STOP, "length": FinishReason.LENGTH}
_COUNTERS = (
    "prompt_eval_count",
    "eval_count",
    "total_duration",
    "load_duration",
    "prompt_eval_duration",
    "eval_duration",
)


def finish_reason(raw: Any, *, has_tool_calls: bool) -> str | None:
    """The normalised finish reason (an unknown one, e.g. ``load``, is kept)."""
    if has_tool_calls:
        return FinishReason.TOOL_CALLS
    if not isinstance(raw, str) or not raw:
        return None
    return _FINISH_REASONS.get(raw, raw)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_from(reply: Mapping[str, Any]) -> Usage:
    """:class:`Usage` from the counters of the final reply; they are the native usage.

    Durations (nanoseconds) are kept in the native usage beside the counts.
    """
    prompt = _int(reply.get("prompt_eval_count")) or 0
    completion = _int(reply.get("eval_count")) or 0
    native = {k: reply[k] for k in _COUNTERS if k in reply}
    return Usage(prompt, completion, prompt + completion, native_usage=native)


def arguments_text(value: Any) -> str:
    """Tool-call arguments as JSON text (Ollama sends an object)."""
    if value is None:
        return "{}"
    if isinstance(value, str):
        return value or "{}"
    return json.dumps(value, ensure_ascii=False)


def generated_call_id(seed: str, position: int, name: str, arguments: str) -> str:
    """A stable id for a tool call the server sent without one.

    The same reply (``seed``: model and timestamp), position, name and arguments give the
    same id, so a call and a stream of the same answer agree.
    """
    digest = hashlib.sha256(f"{seed}:{position}:{name}:{arguments}".encode()).hexdigest()
    return f"call_{digest[:24]}"


def tool_call(item: Mapping[str, Any], *, position: int, seed: str) -> ToolCall:
    """One ``tool_calls`` entry as a complete :class:`ToolCall`."""
    function = item.get("function")
    if not isinstance(function, Mapping):
        function = {}
    name = str(function.get("name") or "")
    arguments = arguments_text(function.get("arguments"))
    call_id = item.get("id")
    if not isinstance(call_id, str) or not call_id:
        index = function.get("index")
        call_id = generated_call_id(
            seed, index if isinstance(index, int) else position, name, arguments
        )
    return ToolCall(call_id, name, arguments)
