"""Naming the replacement tool advisor when a model round fails.

An installed replacement tool advisor (one installed replacement wins over ``default``)
changes which tools and instructions the model sees. When a round then fails in a way the
request may have caused — the server rejected it, or could not parse what the model wrote
— the model is not the only suspect: :class:`ReplacementToolAdvisorHint`, outermost in
the chain of auto-configured clients, adds the advisor to the error's message and its
``fix:`` line. Other failures (credentials, the connection, limits) pass unchanged. It
never swallows or replaces an error: the same exception object is re-raised.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Final

from ostinato._aio import closing_stream
from ostinato.advisors import CallAdvisor, Ordered, StreamAdvisor
from ostinato.config._core_plugin import DEFAULT_TOOL_ADVISOR
from ostinato.errors import (
    BadRequestError,
    MalformedResponseError,
    ModelError,
    OstinatoError,
    ServerError,
)

if TYPE_CHECKING:
    from ostinato.advisors import AdvisorChain, ChatClientRequest, ChatClientResponse, ToolAdvisor
    from ostinato.config._tool_advisor import ToolAdvisorChoice

__all__ = ["ReplacementToolAdvisorHint", "replacement_tool_advisor_hint"]

_ADVISOR_VARIABLE: Final = "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR"
# Failures the request or what the model wrote may have caused.
_SUSPECT: Final = (BadRequestError, ServerError, MalformedResponseError)


class ReplacementToolAdvisorHint(CallAdvisor, StreamAdvisor):
    """Adds the replacement tool advisor to the message of a failed model round.

    Args:
        description: how the advisor is named, e.g. ``'tool-search' (ToolSearch...,
            distribution ostinato-tool-search 0.1.0; the only installed replacement of
            'default')``.
    """

    __slots__ = ("_description",)

    def __init__(self, description: str) -> None:
        self._description = description

    @property
    def name(self) -> str:
        """``replacement-tool-advisor-hint``."""
        return "replacement-tool-advisor-hint"

    @property
    def order(self) -> int:
        """Outermost: it sees every round's failure, whatever the other advisors do."""
        return Ordered.HIGHEST_PRECEDENCE

    @property
    def description(self) -> str:
        """How the error names the tool advisor."""
        return self._description

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        """The inner response; a suspect model error is re-raised with the advisor named."""
        try:
            return await chain.next_call(request)
        except _SUSPECT as error:
            self.name_in(error)
            raise

    async def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """The inner chunks; a suspect model error is re-raised with the advisor named."""
        try:
            async with closing_stream(chain.next_stream(request)) as stream:
                async for chunk in stream:
                    yield chunk
        except _SUSPECT as error:
            self.name_in(error)
            raise

    def name_in(self, error: ModelError) -> None:
        """Add the advisor to ``error``'s message, before its ``fix:`` line and in it
        (once: an error passing twice is not changed again)."""
        text = str(error)
        note = f"  the tool advisor is {self._description}: it decides which tools and " + (
            "instructions the model sees"
        )
        if note in text:
            return
        lines = text.splitlines()
        fixes = [i for i, line in enumerate(lines) if line.startswith("fix:")]
        rule_out = f"rule out the tool advisor: {_ADVISOR_VARIABLE}={DEFAULT_TOOL_ADVISOR}"
        if fixes:
            at = fixes[-1]
            lines[at : at + 1] = [note, f"{lines[at].rstrip().rstrip('.')}; or {rule_out}"]
        else:
            fix = (
                f"fix: rule out the tool advisor: run with {_ADVISOR_VARIABLE}="
                f"{DEFAULT_TOOL_ADVISOR}; if the error stays, look at the model and its server"
            )
            lines.extend([note, fix])
        error.args = ("\n".join(lines), *error.args[1:])


def replacement_tool_advisor_hint(
    choose: Callable[[], ToolAdvisorChoice], tool_advisor: ToolAdvisor
) -> ReplacementToolAdvisorHint | None:
    """The hint for the chosen tool advisor, or ``None`` when it is core's ``default``.

    ``choose`` gives the container's choice (called here, so that a container whose tool
    advisor was given in code and whose choice cannot be made still builds).
    """
    try:
        choice = choose()
    except OstinatoError:
        return None
    if choice.name == DEFAULT_TOOL_ADVISOR:
        return None
    described = (
        f"{choice.name!r} ({type(tool_advisor).__name__}, {choice.plugin.source}; {choice.reason})"
    )
    return ReplacementToolAdvisorHint(described)
