"""``ScriptedChatModel``: a real :class:`~ostinato.model.ChatModel` that replays a script.

For users' own tests and ours: each model request consumes the next entry of the script
and every prompt received is recorded. Entries may be texts, tool calls, whole
responses, explicit chunk lists for streams, exceptions to raise, or functions of the
prompt (for concurrent tests where order is not known in advance).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ostinato.errors import OstinatoError
from ostinato.messages import AssistantMessage, ToolCall
from ostinato.model import (
    ChatGenerationMetadata,
    ChatResponse,
    ChatResponseMetadata,
    FinishReason,
    Generation,
    Usage,
)
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions

__all__ = [
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "ScriptedStream",
    "text_response",
    "tool_call",
    "tool_call_response",
]


class ScriptExhaustedError(OstinatoError, AssertionError):
    """The scripted model was asked more often than its script allows."""


def tool_call(
    name: str, arguments: Mapping[str, Any] | str | None = None, *, id: str = ""
) -> ToolCall:
    """A :class:`ToolCall` with JSON-encoded ``arguments`` (an id is made up when omitted)."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return ToolCall(id or f"call_{name}", name, args)


def text_response(
    text: str | None,
    *,
    usage: Usage | tuple[int, int, int] | None = None,
    finish_reason: str | None = FinishReason.STOP,
    metadata: Mapping[str, Any] | None = None,
    model: str = "scripted",
    id: str = "",
) -> ChatResponse:
    """A one-generation response answering ``text``."""
    return _response(AssistantMessage(text, (), metadata or {}), usage, finish_reason, model, id)


def tool_call_response(
    *calls: ToolCall | tuple[str, Mapping[str, Any] | str],
    text: str | None = None,
    usage: Usage | tuple[int, int, int] | None = None,
    finish_reason: str | None = FinishReason.TOOL_CALLS,
    model: str = "scripted",
    id: str = "",
) -> ChatResponse:
    """A one-generation response asking for ``calls`` (``ToolCall`` or ``(name, args)``)."""
    built = tuple(c if isinstance(c, ToolCall) else tool_call(c[0], c[1]) for c in calls)
    # Give repeated names distinct ids so responses can be told apart.
    seen: dict[str, int] = {}
    unique = []
    for c in built:
        n = seen.get(c.id, 0)
        seen[c.id] = n + 1
        unique.append(c if n == 0 else ToolCall(f"{c.id}_{n}", c.name, c.arguments, c.type))
    return _response(AssistantMessage(text, tuple(unique)), usage, finish_reason, model, id)


def _usage(usage: Usage | tuple[int, int, int] | None) -> Usage:
    if usage is None:
        return Usage()
    if isinstance(usage, Usage):
        return usage
    return Usage(*usage)


def _response(
    output: AssistantMessage,
    usage: Usage | tuple[int, int, int] | None,
    finish_reason: str | None,
    model: str,
    id: str,
) -> ChatResponse:
    return ChatResponse(
        [Generation(output, ChatGenerationMetadata(finish_reason=finish_reason))],
        ChatResponseMetadata(id=id, model=model, usage=_usage(usage)),
    )


@dataclass(frozen=True)
class ScriptedStream:
    """An explicit stream: these chunks in order; an exception entry is raised there."""

    chunks: Sequence[ChatResponse | BaseException]
    delay: float = 0.0


class ScriptedChatModel:
    """A chat model that answers from a script and records what it was asked.

    Args:
        script: one entry per model request, in order: a ``str`` (a text answer), a
            :class:`ChatResponse`, a :class:`ScriptedStream` (explicit chunks), an
            exception (raised), or a function ``prompt -> entry``.
        default_options: the options requests start from; the default
            :class:`ToolCallingChatOptions` lets the tool loop run. Pass plain
            :class:`ChatOptions` to model a provider without tools.
        responder: used when the script is exhausted (instead of failing); handy for
            concurrency tests that answer from the prompt.
        latency: seconds to wait before answering (and between stream chunks).
        native_structured_output: whether ``entity(..., native=True)`` is accepted (the
            JSON schema is then on the recorded prompts' options as ``output_schema``);
            ``False`` plays a model without native structured output.

    In streams, text answers are cut into chunks of ``chunk_size`` characters, tool-call
    arguments into fragments carrying an ``index`` (like OpenAI's), and usage and the
    finish reason arrive on the last chunk.
    """

    __slots__ = (
        "_lock",
        "_position",
        "chunk_size",
        "default_options_",
        "latency",
        "native_structured_output",
        "prompts",
        "responder",
        "script",
    )

    def __init__(
        self,
        script: Iterable[Any] = (),
        *,
        default_options: ChatOptions | None = None,
        responder: Callable[[Prompt], Any] | None = None,
        latency: float = 0.0,
        chunk_size: int = 4,
        native_structured_output: bool = True,
    ) -> None:
        self.script: list[Any] = list(script)
        self.native_structured_output = native_structured_output
        self.default_options_ = (
            default_options if default_options is not None else ToolCallingChatOptions()
        )
        self.responder = responder
        self.latency = latency
        self.chunk_size = chunk_size
        self.prompts: list[Prompt] = []
        """Every prompt received, in order."""
        self._lock = threading.Lock()
        self._position = 0

    @property
    def default_options(self) -> ChatOptions:
        """The options requests start from."""
        return self.default_options_

    @property
    def call_count(self) -> int:
        """How many requests (call or stream) were made."""
        return len(self.prompts)

    @property
    def remaining(self) -> int:
        """Script entries not consumed yet."""
        return len(self.script) - self._position

    def add(self, *entries: Any) -> ScriptedChatModel:
        """Append entries to the script; returns the model for chaining."""
        with self._lock:
            self.script.extend(entries)
        return self

    def _next(self, prompt: Prompt) -> Any:
        with self._lock:
            self.prompts.append(prompt)
            if self._position < len(self.script):
                entry = self.script[self._position]
                self._position += 1
            elif self.responder is not None:
                entry = self.responder
            else:
                raise ScriptExhaustedError(
                    f"ScriptedChatModel was asked {len(self.prompts)} times but its script has "
                    f"{len(self.script)} entries; last prompt: {prompt!r}"
                )
        while callable(entry) and not isinstance(entry, BaseException | type):
            entry = entry(prompt)
        return entry

    async def call(self, prompt: Prompt) -> ChatResponse:
        """Answer with the next script entry in one piece."""
        entry = self._next(prompt)
        if self.latency:
            await asyncio.sleep(self.latency)
        if isinstance(entry, BaseException):
            raise entry
        if isinstance(entry, ScriptedStream):
            from ostinato.model import MessageAggregator

            aggregator = MessageAggregator()
            for chunk in entry.chunks:
                if isinstance(chunk, BaseException):
                    raise chunk
                aggregator.add(chunk)
            return aggregator.result()
        return self._as_response(entry)

    async def stream(self, prompt: Prompt) -> AsyncIterator[ChatResponse]:
        """Answer with the next script entry as a stream of chunks."""
        entry = self._next(prompt)
        if isinstance(entry, BaseException):
            if self.latency:
                await asyncio.sleep(self.latency)
            raise entry
        if isinstance(entry, ScriptedStream):
            chunks: Sequence[ChatResponse | BaseException] = entry.chunks
            delay = entry.delay or self.latency
        else:
            chunks = self.chunk(self._as_response(entry))
            delay = self.latency
        for chunk in chunks:
            if delay:
                await asyncio.sleep(delay)
            if isinstance(chunk, BaseException):
                raise chunk
            yield chunk

    def _as_response(self, entry: Any) -> ChatResponse:
        if isinstance(entry, str):
            return text_response(entry)
        if isinstance(entry, ChatResponse):
            return entry
        raise TypeError(
            f"unsupported script entry {entry!r}; expected str, ChatResponse, ScriptedStream, "
            "an exception or a function of the prompt"
        )

    def chunk(self, response: ChatResponse) -> list[ChatResponse]:
        """Cut ``response`` into stream chunks the way a provider would.

        Text comes in pieces of ``chunk_size`` characters, then each tool call's arguments
        in fragments carrying the call's ``index`` (id and name on the first fragment
        only). The finish reason, message metadata and response metadata (usage) ride
        on the last chunk, as providers send them at the end.
        """
        generation = response.result
        if generation is None:
            return [response]
        out = generation.output
        size = max(1, self.chunk_size)
        messages: list[AssistantMessage] = []
        text = out.text or ""
        for start in range(0, len(text), size):
            messages.append(AssistantMessage(text[start : start + size]))
        for index, call in enumerate(out.tool_calls):
            args = call.arguments
            pieces = [args[i : i + size] for i in range(0, len(args), size)] or [""]
            for n, piece in enumerate(pieces):
                first = n == 0
                fragment = ToolCall(
                    call.id if first else "", call.name if first else "", piece, call.type, index
                )
                messages.append(AssistantMessage(None, (fragment,)))
        if not messages:
            # An empty answer stays "" (not None) once aggregated, as call() returns it.
            messages.append(AssistantMessage(out.text))
        last = messages[-1]
        messages[-1] = AssistantMessage(last.text, last.tool_calls, out.metadata, out.media)
        chunks = [ChatResponse([Generation(m)]) for m in messages[:-1]]
        chunks.append(
            ChatResponse([Generation(messages[-1], generation.metadata)], response.metadata)
        )
        return chunks
