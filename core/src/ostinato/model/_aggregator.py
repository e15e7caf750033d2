"""Folding a streamed answer into the one response ``call()`` would have returned."""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from typing import Any

from ostinato.messages import REASONING, AssistantMessage, Media, ToolCall
from ostinato.model._response import (
    ChatGenerationMetadata,
    ChatResponse,
    ChatResponseMetadata,
    Generation,
)
from ostinato.model._usage import Usage

__all__ = ["MessageAggregator"]


class _CallBuilder:
    __slots__ = ("arguments", "id", "name", "type")

    def __init__(self, call: ToolCall) -> None:
        self.id = call.id
        self.name = call.name
        self.type = call.type
        self.arguments = [call.arguments] if call.arguments else []

    def merge(self, call: ToolCall) -> None:
        self.id = self.id or call.id
        self.name = self.name or call.name
        self.type = self.type or call.type
        if call.arguments:
            self.arguments.append(call.arguments)

    def build(self) -> ToolCall:
        return ToolCall(self.id, self.name, "".join(self.arguments), self.type or "function")


class _GenerationBuilder:
    """Accumulates the pieces of one generation across chunks."""

    __slots__ = (
        "_calls",
        "_content_filters",
        "_finish_reason",
        "_gen_meta",
        "_keys",
        "_media",
        "_message_meta",
        "_reasoning",
        "_text",
    )

    def __init__(self) -> None:
        self._text: list[str] | None = None
        self._reasoning: list[str] | None = None
        self._message_meta: dict[str, Any] = {}
        self._media: list[Media] = []
        self._calls: list[_CallBuilder] = []
        self._keys: list[tuple[str, object] | None] = []
        self._finish_reason: str | None = None
        self._content_filters: set[str] = set()
        self._gen_meta: dict[str, Any] = {}

    def add(self, generation: Generation) -> None:
        out = generation.output
        if out.text is not None:
            if self._text is None:
                self._text = []
            self._text.append(out.text)
        # Most chunks carry a piece of text and nothing else: each part is looked at only
        # when it holds something.
        if out.metadata:
            for key, value in out.metadata.items():
                if key == REASONING and isinstance(value, str):
                    if self._reasoning is None:
                        self._reasoning = []
                    self._reasoning.append(value)
                else:
                    self._message_meta[key] = value
        if out.media:
            self._media.extend(out.media)
        if out.tool_calls:
            for call in out.tool_calls:
                self._add_call(call)
        meta = generation.metadata
        if meta.finish_reason:
            self._finish_reason = meta.finish_reason
        if meta.content_filters:
            self._content_filters.update(meta.content_filters)
        if meta.metadata:
            self._gen_meta.update(meta.metadata)

    def _add_call(self, call: ToolCall) -> None:
        if call.index is not None:
            key: tuple[str, object] = ("index", call.index)
        elif call.id:
            key = ("id", call.id)
        else:
            self._calls.append(_CallBuilder(call))
            self._keys.append(None)
            return
        for position, (builder, builder_key) in enumerate(
            zip(self._calls, self._keys, strict=True)
        ):
            if builder_key == key:
                if call.index is not None and call.id and builder.id and call.id != builder.id:
                    # A different call reusing the index (servers that number every call
                    # 0): close the old one and start anew.
                    self._keys[position] = None
                    break
                builder.merge(call)
                return
        self._calls.append(_CallBuilder(call))
        self._keys.append(key)

    def build(self) -> Generation:
        message_meta = dict(self._message_meta)
        if self._reasoning is not None:
            message_meta[REASONING] = "".join(self._reasoning)
        output = AssistantMessage(
            "".join(self._text) if self._text is not None else None,
            tuple(b.build() for b in self._calls),
            message_meta,
            tuple(self._media),
        )
        return Generation(
            output,
            ChatGenerationMetadata(
                self._finish_reason, frozenset(self._content_filters), self._gen_meta
            ),
        )


class MessageAggregator:
    """Accumulates stream chunks into one :class:`ChatResponse`.

    Rules (Spring AI's aggregation, plus merging streamed tool-call fragments by index and id):

    * generations are folded by position: the n-th generation of each chunk into the
      n-th generation of the aggregate (a stream of one generation is the usual case; a
      chunk carrying several whole generations, such as the tool loop's return-direct
      answer, aggregates to the same generations ``call()`` returns);
    * text is the concatenation of every non-``None`` text (``None`` if no chunk had
      text); reasoning text in ``metadata["reasoning"]`` is concatenated likewise, other
      message metadata is merged with later chunks winning;
    * tool calls carrying an ``index`` are fragments: those with the same index are
      merged (first non-empty id, name and type; arguments concatenated); calls without
      an index are merged with an earlier call of the same id, else appended whole;
    * finish reason: the last one set; generation metadata merged;
    * usage: for each count, the last positive value seen (so providers that repeat a
      running total are not double-counted, and those that send it once at the end work);
    * id, model, rate limit and prompt metadata: the last non-empty value.

    Use :meth:`add` chunk by chunk and :meth:`result` at the end, or the class methods
    :meth:`aggregate` / :meth:`aaggregate` on a whole stream.
    """

    __slots__ = (
        "_count",
        "_generations",
        "_id",
        "_last_metadata",
        "_model",
        "_prompt_metadata",
        "_rate_limit",
        "_response_meta",
        "_usage",
    )

    def __init__(self) -> None:
        self._generations: list[_GenerationBuilder] = []
        self._usage: dict[str, Any] = {}
        self._id = ""
        self._model = ""
        self._rate_limit: Any = None
        self._prompt_metadata: Any = None
        self._response_meta: dict[str, Any] = {}
        self._count = 0
        self._last_metadata: ChatResponseMetadata | None = None

    @property
    def chunk_count(self) -> int:
        """How many chunks were added."""
        return self._count

    def add(self, chunk: ChatResponse) -> None:
        """Fold one chunk in."""
        self._count += 1
        builders = self._generations
        generations = chunk.generations
        if len(generations) == 1 and builders:  # the usual chunk: one generation
            builders[0].add(generations[0])
        else:
            for position, generation in enumerate(generations):
                if position == len(builders):
                    builders.append(_GenerationBuilder())
                builders[position].add(generation)
        if chunk.metadata is not self._last_metadata:
            self._add_metadata(chunk.metadata)

    def _add_metadata(self, metadata: ChatResponseMetadata) -> None:
        if metadata is self._last_metadata:
            return  # adapters share one metadata object between chunks; folding is idempotent
        self._last_metadata = metadata
        usage = metadata.usage
        for name in ("prompt_tokens", "completion_tokens", "total_tokens"):
            value = getattr(usage, name)
            if value > 0:
                self._usage[name] = value
        for name in (
            "cache_read_input_tokens",
            "cache_write_input_tokens",
            "native_usage",
            "reasoning_tokens",
        ):
            value = getattr(usage, name)
            if value is not None:
                self._usage[name] = value
        if metadata.id:
            self._id = metadata.id
        if metadata.model:
            self._model = metadata.model
        if metadata.rate_limit:
            self._rate_limit = metadata.rate_limit
        if metadata.prompt_metadata:
            self._prompt_metadata = metadata.prompt_metadata
        self._response_meta.update(metadata.metadata)

    def result(self) -> ChatResponse:
        """The aggregate so far (at least one generation, whatever was streamed)."""
        builders = self._generations or [_GenerationBuilder()]
        usage = self._usage
        total = usage.get("total_tokens")
        if total is not None and total < usage.get("prompt_tokens", 0) + usage.get(
            "completion_tokens", 0
        ):
            # A total reported before the final counts (e.g. only prompt tokens) is stale.
            total = None
        return ChatResponse(
            [b.build() for b in builders],
            ChatResponseMetadata(
                id=self._id,
                model=self._model,
                usage=Usage(
                    usage.get("prompt_tokens", 0),
                    usage.get("completion_tokens", 0),
                    total,
                    usage.get("cache_read_input_tokens"),
                    usage.get("cache_write_input_tokens"),
                    usage.get("native_usage"),
                    usage.get("reasoning_tokens"),
                ),
                rate_limit=self._rate_limit or {},
                prompt_metadata=self._prompt_metadata or {},
                metadata=self._response_meta,
            ),
        )

    @classmethod
    def aggregate(cls, chunks: Iterable[ChatResponse]) -> ChatResponse:
        """Fold a whole (sync) stream."""
        aggregator = cls()
        for chunk in chunks:
            aggregator.add(chunk)
        return aggregator.result()

    @classmethod
    async def aaggregate(cls, chunks: AsyncIterable[ChatResponse]) -> ChatResponse:
        """Fold a whole async stream."""
        aggregator = cls()
        async for chunk in chunks:
            aggregator.add(chunk)
        return aggregator.result()
