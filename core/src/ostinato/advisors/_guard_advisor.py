"""``GuardAdvisor``: runs an application's guards around the rest of the chain.

Before the rest of the chain runs, each guard, in order, checks the user's text (the
last user message's; a rewrite replaces that message, and the next guard sees the new
text); a refusal ends the request there, the model never called, with one assistant
message: the refusal's response, or the advisor's failure response. After, each guard
checks the answer's text (the first generation's): a rewrite replaces it, a refusal
replaces the answer with the refusal's response. On the stream path, with a guard that
checks output, the stream is held back until complete, then given on as it came or, if
a guard acted, as one chunk of the new text; with none, chunks pass as they come. Each
refusal and rewrite is told as a :class:`~ostinato.events.GuardActed` event. Deltas the
loop's events carried while the answer streamed are not withdrawn by an output guard:
listeners that show deltas to a user should wait for the final answer where output is
guarded.

By default the advisor sits outside the tool loop (:attr:`GuardAdvisor.DEFAULT_ORDER`):
the input guards run once per turn, before its first round (events at round 0), the
output guards on the turn's final answer. Given an order inside the loop (above the
tool advisor's, as :class:`~ostinato.advisors.SafeGuardAdvisor`'s 0 is), they run on
every round instead.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any, ClassVar, Final

from ostinato.advisors._api import CallAdvisor, Ordered, StreamAdvisor
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.advisors._guard import Guard, GuardAction, GuardDecision
from ostinato.context_keys import EVENT_SINK
from ostinato.messages import AssistantMessage
from ostinato.model import ChatGenerationMetadata, ChatResponse, Generation

if TYPE_CHECKING:
    from ostinato.advisors._chain import AdvisorChain

__all__ = ["DEFAULT_GUARD_RESPONSE", "GuardAdvisor", "refusal_response"]

#: What a refused request is answered with when the guard gives no response (Spring
#: AI's ``SafeGuardAdvisor`` failure response, word for word).
DEFAULT_GUARD_RESPONSE: Final = (
    "I'm unable to respond to that due to sensitive content. "
    "Could you rephrase or provide more context?"
)


def refusal_response(text: str, context: Any) -> ChatClientResponse:
    """A response of one assistant message, ``text``, finished ``STOP``, with ``context``."""
    generation = Generation(AssistantMessage(text), ChatGenerationMetadata(finish_reason="STOP"))
    return ChatClientResponse(ChatResponse([generation]), context)


async def _decided(result: Any, guard: Guard, stage: str) -> GuardDecision:
    decision = await result if inspect.isawaitable(result) else result
    if not isinstance(decision, GuardDecision):
        raise TypeError(
            f"the guard {guard.name!r} returned {decision!r} from check_{stage}\n"
            "  expected: a GuardDecision\n"
            "fix: return GuardDecision.allow(), .refuse(reason) or .rewrite(text)"
        )
    return decision


async def _tell(sink: Any, guard: Guard, stage: str, decision: GuardDecision) -> None:
    from ostinato.events import EventSink
    from ostinato.events._guard import GuardActed

    if isinstance(sink, EventSink):
        event = GuardActed(sink.round, guard.name, stage, decision.action.value, decision.reason)
        await sink.emit(event)


def _with_text(response: ChatClientResponse, text: str) -> ChatClientResponse:
    chat = response.chat_response
    if chat is None or not chat.generations:
        return refusal_response(text, response.context)
    first, *rest = chat.generations
    output = AssistantMessage(text, first.output.tool_calls, first.output.metadata)
    generations = [Generation(output, first.metadata), *rest]
    return response.copy(chat_response=chat.copy(generations=generations))


class GuardAdvisor(CallAdvisor, StreamAdvisor):
    """Runs ``guards`` on the user's text and on the answer (see the module's docstring).

    Args:
        guards: the guards, in the order they check.
        failure_response: the answer to a refusal that gives none (default
            :data:`DEFAULT_GUARD_RESPONSE`).
        order: the advisor's place in the chain (default :attr:`DEFAULT_ORDER`: outside
            the tool loop and before chat memory, so the guards see each turn once, and
            memory keeps a rewritten text, not the original).
    """

    __slots__ = ("_failure", "_guards", "_order", "_output")

    DEFAULT_ORDER: ClassVar[int] = Ordered.HIGHEST_PRECEDENCE + 100

    def __init__(
        self,
        guards: Iterable[Guard],
        *,
        failure_response: str = DEFAULT_GUARD_RESPONSE,
        order: int = DEFAULT_ORDER,
    ) -> None:
        found = tuple(guards)
        for i, guard in enumerate(found):
            if not isinstance(guard, Guard):
                raise TypeError(
                    f"guards[{i}] is {guard!r}\n  expected: an ostinato.advisors.Guard\n"
                    "fix: subclass Guard and override check_input and/or check_output"
                )
        self._guards = found
        self._output = tuple(g for g in found if g.checks_output())
        self._failure = failure_response
        self._order = order

    @property
    def order(self) -> int:
        """The advisor's place in the chain."""
        return self._order

    @property
    def guards(self) -> tuple[Guard, ...]:
        """The guards, in the order they check."""
        return self._guards

    @property
    def failure_response(self) -> str:
        """The answer to a refusal that gives none."""
        return self._failure

    async def check_request(
        self, request: ChatClientRequest
    ) -> tuple[ChatClientRequest, ChatClientResponse | None]:
        """The request as the input guards leave it, and the refusal if one refused."""
        sink = request.context.get(EVENT_SINK)
        for guard in self._guards:
            text = request.prompt.user_message.text or ""
            decision = await _decided(guard.check_input(text, request), guard, "input")
            if decision.action is GuardAction.ALLOW:
                continue
            await _tell(sink, guard, "input", decision)
            if decision.action is GuardAction.REFUSE:
                return request, refusal_response(decision.text or self._failure, request.context)
            assert decision.text is not None
            request = request.copy(prompt=request.prompt.augment_user_message(decision.text))
        return request, None

    async def check_response(self, response: ChatClientResponse, sink: Any) -> ChatClientResponse:
        """``response`` as the output guards leave it (``sink``: the run's event sink)."""
        for guard in self._output:
            chat = response.chat_response
            text = None if chat is None else chat.text
            if text is None:
                return response  # nothing said (no answer): nothing to check
            decision = await _decided(guard.check_output(text, response), guard, "output")
            if decision.action is GuardAction.ALLOW:
                continue
            await _tell(sink, guard, "output", decision)
            if decision.action is GuardAction.REFUSE:
                return refusal_response(decision.text or self._failure, response.context)
            assert decision.text is not None
            response = _with_text(response, decision.text)
        return response

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        """The refusal, or the rest of the chain's answer as the output guards leave it."""
        request, refused = await self.check_request(request)
        if refused is not None:
            return refused
        response = await chain.next_call(request)
        if not self._output:
            return response
        return await self.check_response(response, request.context.get(EVENT_SINK))

    async def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """The refusal as one chunk, or the rest of the chain's stream (held back until
        complete when a guard checks output)."""
        request, refused = await self.check_request(request)
        if refused is not None:
            yield refused
            return
        if not self._output:
            async for response in chain.next_stream(request):
                yield response
            return
        chunks = [response async for response in chain.next_stream(request)]
        if not chunks:
            return
        text = "".join(c.chat_response.text or "" for c in chunks if c.chat_response is not None)
        whole = _with_text(chunks[-1], text)
        checked = await self.check_response(whole, request.context.get(EVENT_SINK))
        if checked is whole:
            for response in chunks:
                yield response
        else:
            yield checked
