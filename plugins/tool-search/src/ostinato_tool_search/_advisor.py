"""``ToolSearchToolCallingAdvisor``: the tool loop, showing the model only the tools it found.

A subclass of :class:`~ostinato.advisors.ToolCallingAdvisor` that overrides hooks only,
as Spring AI's tool-search advisor does:

* at loop start (``do_initialize_loop``/``_stream``) it indexes the request's tools for the
  session — the conversation id from the advisor context, or one session for this turn
  when there is none — unless that session already holds this exact tool set, and adds a
  paragraph about ``toolSearchTool`` to the system message;
* before each model round (``do_before_call``/``_stream``) it sends the model
  ``toolSearchTool`` plus the tools named by earlier ``toolSearchTool`` answers (all of
  them with ``accumulate``, else those of the latest search); since the loop runs tools
  against the options actually sent, a discovered tool is callable at once;
* at loop end it forgets a turn's own session (conversation sessions stay indexed until
  evicted by the strategy or :meth:`~ToolSearchToolCallingAdvisor.evict_session`).

Differences from Spring AI, on purpose: a request without tools passes through
untouched (no search tool, no suffix); a ``toolSearchTool`` answer that is not a JSON list
of names is ignored instead of failing the next round; with ``accumulate`` the tools
found earlier in the turn stay attached even when a memory advisor inside the loop
forwards only the last tool response (Spring AI drops them).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final

from ostinato.advisors import (
    AdvisorChain,
    ChatClientRequest,
    ChatClientResponse,
    ToolCallingAdvisor,
)
from ostinato.context_keys import CONVERSATION_ID
from ostinato.errors import ConfigurationError
from ostinato.messages import SystemMessage
from ostinato.prompt import ToolCallingChatOptions
from ostinato.tools import ToolCallback
from ostinato_tool_search._advisor_settings import (
    ToolSearchAdvisorSettings,
)
from ostinato_tool_search._eviction import EvictionStrategy, LruEvictionStrategy
from ostinato_tool_search._index import ToolIndex
from ostinato_tool_search._search_tool import (
    SEARCH_TOOL_NAME,
    SESSION_ID_TOOL_CONTEXT_KEY,
    ToolSearchTool,
)
from ostinato_tool_search._sessions import IndexedSessions
from ostinato_tool_search._turn import TURN_CONTEXT_KEY, ToolSearchTurn

if TYPE_CHECKING:
    from ostinato_tool_search._builder import ToolSearchToolCallingAdvisorBuilder

__all__ = ["ToolSearchToolCallingAdvisor"]

_EPHEMERAL_PREFIX: Final = "ostinato.tool_search.turn:"
_UNSET: Any = object()


class ToolSearchToolCallingAdvisor(ToolCallingAdvisor):
    """A tool loop in which the model sees ``toolSearchTool`` and the tools it found with it,
    not every attached tool. Useful from a few dozen tools up.

    Args:
        tool_index: where tools are indexed and searched (default: a new
            :class:`~ostinato_tool_search.KeywordToolIndex`).
        max_results: names a search returns when the model does not say (``None``: the
            index's default, 10 for the bundled ones).
        accumulate: keep every tool found in the turn attached (default); ``False`` keeps
            only those of the latest ``toolSearchTool`` answer.
        system_message_suffix: the paragraph added to the system message (default
            :data:`DEFAULT_SYSTEM_MESSAGE_SUFFIX`).
        eviction_strategy: which indexed sessions to forget (default: a new
            :class:`~ostinato_tool_search.LruEvictionStrategy` of 1000 sessions).
        session_id_key: the advisor-context key holding the conversation id (default
            :data:`ostinato.memory.CONVERSATION_ID`).
        tool_calling_manager, tool_execution_eligibility_checker, advisor_order,
        conversation_history_enabled, max_iterations: as for ``ToolCallingAdvisor``.

    Raises:
        ConfigurationError: a setting has the wrong type or value.
    """

    SEARCH_TOOL_NAME: ClassVar[str] = SEARCH_TOOL_NAME
    _OWN_SETTINGS: ClassVar[tuple[str, ...]] = ToolSearchAdvisorSettings.names()
    _SETTINGS: ClassVar[tuple[str, ...]] = ToolCallingAdvisor._SETTINGS + _OWN_SETTINGS

    def __init__(
        self,
        *,
        tool_index: ToolIndex = _UNSET,
        max_results: int | None = None,
        accumulate: bool = True,
        system_message_suffix: str | None = None,
        eviction_strategy: EvictionStrategy = _UNSET,
        session_id_key: str = CONVERSATION_ID,
        **tool_calling_settings: Any,
    ) -> None:
        if tool_index is _UNSET:
            from ostinato_tool_search._keyword import KeywordToolIndex

            tool_index = KeywordToolIndex()
        self._set_own(
            tool_index=tool_index,
            max_results=max_results,
            accumulate=accumulate,
            system_message_suffix=system_message_suffix,
            eviction_strategy=(
                LruEvictionStrategy() if eviction_strategy is _UNSET else eviction_strategy
            ),
            session_id_key=session_id_key,
        )
        super().__init__(**tool_calling_settings)

    # -- settings ---------------------------------------------------------------------

    def _configure(self, **settings: Any) -> None:
        own = {k: settings.pop(k) for k in self._OWN_SETTINGS if k in settings}
        if own:  # copy() passes every setting; __init__ set ours before calling the base
            self._set_own(**{**self._own_settings(), **own})
        super()._configure(**settings)

    def _own_settings(self) -> dict[str, Any]:
        return self._search_settings.as_dict()

    def _set_own(self, **own: Any) -> None:
        settings = ToolSearchAdvisorSettings(**own)
        index, eviction = settings.tool_index, settings.eviction_strategy
        # Copies share the indexed sessions and the search tool while what they hang on
        # (the index, the eviction strategy, max_results) is the same.
        sessions = getattr(self, "_sessions", None)
        if sessions is None or sessions.index is not index or sessions.eviction is not eviction:
            sessions = IndexedSessions(index, eviction)
        search_tool = getattr(self, "_search_tool", None)
        if (
            search_tool is None
            or search_tool.tool_index is not index
            or search_tool.max_results != settings.max_results
        ):
            search_tool = ToolSearchTool(index, settings.max_results)
        self._search_settings = settings
        self._sessions = sessions
        self._search_tool = search_tool

    @property
    def name(self) -> str:
        """``"ToolSearchToolCallingAdvisor"``."""
        return "ToolSearchToolCallingAdvisor"

    @property
    def tool_index(self) -> ToolIndex:
        """Where tools are indexed and searched."""
        return self._search_settings.tool_index

    @property
    def max_results(self) -> int | None:
        """Names a search returns when the model does not say (``None``: the index's)."""
        return self._search_settings.max_results

    @property
    def accumulate(self) -> bool:
        """Whether every tool found in the turn stays attached."""
        return self._search_settings.accumulate

    @property
    def system_message_suffix(self) -> str:
        """The paragraph added to the system message."""
        return self._search_settings.system_message_suffix or ""

    @property
    def eviction_strategy(self) -> EvictionStrategy:
        """Which indexed sessions to forget as new ones arrive."""
        return self._search_settings.eviction_strategy

    @property
    def session_id_key(self) -> str:
        """The advisor-context key holding the conversation id."""
        return self._search_settings.session_id_key

    @property
    def search_tool(self) -> ToolSearchTool:
        """The ``toolSearchTool`` callback sent to the model each round."""
        return self._search_tool

    @property
    def tool_search_settings(self) -> ToolSearchAdvisorSettings:
        """This advisor's tool-search settings, as one frozen value."""
        return self._search_settings

    @property
    def indexed_sessions(self) -> IndexedSessions:
        """The sessions indexed so far (shared with every copy of this advisor)."""
        return self._sessions

    def settings(self) -> dict[str, Any]:
        """The constructor settings of this advisor (what :meth:`copy` starts from)."""
        return {**super().settings(), **self._own_settings()}

    @classmethod
    def builder(cls) -> ToolSearchToolCallingAdvisorBuilder:
        """A fluent builder, for people coming from Spring AI."""
        from ostinato_tool_search._builder import ToolSearchToolCallingAdvisorBuilder

        return ToolSearchToolCallingAdvisorBuilder(cls)

    # -- sessions -----------------------------------------------------------------------

    async def aevict_session(self, session_id: str) -> None:
        """Forget ``session_id``'s index now; its next turn indexes its tools again."""
        await self._sessions.evict(session_id)

    def evict_session(self, session_id: str) -> None:
        """Blocking twin of :meth:`aevict_session` (not from ostinato's own event loop)."""
        from ostinato.runtime import run_sync

        run_sync(lambda: self._sessions.evict(session_id), async_name="aevict_session")

    # -- hooks --------------------------------------------------------------------------

    async def do_initialize_loop(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientRequest:
        """Index the request's tools for the session and add the system-message suffix."""
        return await self._start_turn(request)

    async def do_initialize_loop_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientRequest:
        """Stream twin of :meth:`do_initialize_loop`."""
        return await self._start_turn(request)

    async def do_before_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientRequest:
        """Attach ``toolSearchTool`` and the tools found so far, and nothing else."""
        return self._expose_tools(request)

    async def do_before_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientRequest:
        """Stream twin of :meth:`do_before_call`."""
        return self._expose_tools(request)

    async def do_finalize_loop(
        self, response: ChatClientResponse, chain: AdvisorChain
    ) -> ChatClientResponse:
        """Forget the turn's own session (when there was no conversation id)."""
        turn = response.context.get(TURN_CONTEXT_KEY)
        if not isinstance(turn, ToolSearchTurn):
            return response
        if turn.ephemeral:
            await self._sessions.evict(turn.session_id)
        return response.without_context_keys(TURN_CONTEXT_KEY)

    def do_finalize_loop_stream(
        self, stream: AsyncIterator[ChatClientResponse], chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """Stream twin of :meth:`do_finalize_loop`: runs when the stream ends, fails or is
        closed early."""
        return self._finish_stream(stream)

    # -- the work -------------------------------------------------------------------------

    async def _start_turn(self, request: ChatClientRequest) -> ChatClientRequest:
        options = request.prompt.options
        if not isinstance(options, ToolCallingChatOptions) or not options.tool_callbacks:
            return request
        callbacks: dict[str, ToolCallback] = {}
        for callback in options.tool_callbacks:
            callbacks.setdefault(callback.tool_definition.name, callback)
        if SEARCH_TOOL_NAME in callbacks:
            raise ConfigurationError(
                f"a tool named {SEARCH_TOOL_NAME!r} is attached to the request, but "
                f"{self.name} provides that tool itself\n"
                f"fix: rename the tool (@tool(name=...))"
            )
        raw = request.context.get(self._search_settings.session_id_key)
        ephemeral = raw is None or str(raw) == ""
        session_id = f"{_EPHEMERAL_PREFIX}{uuid.uuid4().hex}" if ephemeral else str(raw)
        await self._sessions.prepare(session_id, [c.tool_definition for c in callbacks.values()])
        prompt = request.prompt.augment_system_message(self._with_suffix)
        turn = ToolSearchTurn(session_id, ephemeral, callbacks)
        return request.copy(prompt=prompt).with_context({TURN_CONTEXT_KEY: turn})

    def _with_suffix(self, message: SystemMessage) -> SystemMessage:
        text = message.text.rstrip()
        return SystemMessage(
            f"{text}\n\n{self.system_message_suffix}" if text else self.system_message_suffix,
            message.metadata,
        )

    def _expose_tools(self, request: ChatClientRequest) -> ChatClientRequest:
        turn = request.context.get(TURN_CONTEXT_KEY)
        options = request.prompt.options
        if not isinstance(turn, ToolSearchTurn) or not isinstance(options, ToolCallingChatOptions):
            return request
        found = turn.discover(request.prompt.messages, accumulate=self._search_settings.accumulate)
        options = options.with_tool_callbacks(
            [self._search_tool, *(turn.callbacks[name] for name in found)]
        ).with_tool_context({SESSION_ID_TOOL_CONTEXT_KEY: turn.session_id})
        return request.copy(prompt=request.prompt.copy(options=options))

    async def _finish_stream(
        self, stream: AsyncIterator[ChatClientResponse]
    ) -> AsyncIterator[ChatClientResponse]:
        turn: ToolSearchTurn | None = None
        seen: Mapping[str, Any] | None = None
        stripped: Mapping[str, Any] = {}
        try:
            async for chunk in stream:
                if chunk.context is not seen:  # a round's chunks share one context object
                    seen = chunk.context
                    found = seen.get(TURN_CONTEXT_KEY)
                    if isinstance(found, ToolSearchTurn):
                        turn = found
                    stripped = chunk.without_context_keys(TURN_CONTEXT_KEY).context
                yield (
                    chunk if stripped is seen else ChatClientResponse(chunk.chat_response, stripped)
                )
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
            if turn is not None and turn.ephemeral:
                await self._sessions.evict(turn.session_id)
