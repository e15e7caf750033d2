"""Running one batch of tool calls when some of them need an approval decision.

The calls that need no decision run first (through the tool calling manager, as a batch
of their own). Then either an approver decides the others inline, or the batch stops as
a :class:`~ostinato.tools.PendingToolCalls`; :func:`complete_batch` runs the decided
calls later (same process or another). Approved and edited calls run through the manager
too, so limits, lookup, concurrency and error handling are the manager's; a denied call
is answered with the denial's reason. The result is one assistant message (edited
arguments in place) and one tool response per call, in call order.

This module decides nothing about the loop: the tool loop calls it instead of the
manager when a request carries approval settings or a tool requires approval.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import Mapping, Sequence

from ostinato._tool_contract import ToolCallback
from ostinato.errors import ApprovalError
from ostinato.messages import AssistantMessage, Message, ToolCall, ToolResponse, ToolResponseMessage
from ostinato.model import ChatResponse, Generation
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.tools._approval import (
    ApprovalDecision,
    ApprovalKind,
    ApprovalRequest,
    ApprovalSettings,
    Approver,
)
from ostinato.tools._input import ASKS_INPUT, InputAnswer, InputRequest, collecting_input
from ostinato.tools._pending import PendingToolCalls
from ostinato.tools._result import ToolCallingManager, ToolExecutionResult

__all__ = ["complete_batch", "execute_with_approvals", "needs_approvals"]


def _tools(prompt: Prompt) -> tuple[ToolCallback, ...]:
    options = prompt.options
    return options.tool_callbacks if isinstance(options, ToolCallingChatOptions) else ()


def _asking(response: ChatResponse) -> AssistantMessage | None:
    return next((g.output for g in response.generations if g.output.has_tool_calls), None)


def needs_approvals(settings: ApprovalSettings | None, prompt: Prompt) -> bool:
    """Whether a batch under ``settings`` may need decisions (cheap: no call looked at):
    a policy, a tool that requires approval, or one whose calls may ask for input."""
    if settings is not None and settings.policy is not None:
        return True
    effects = settings.effects if settings is not None else frozenset()
    return any(
        getattr(t.tool_metadata, "requires_approval", False)
        or getattr(t.tool_metadata, ASKS_INPUT, False)
        or (effects and getattr(t.tool_metadata, "effect", None) in effects)
        for t in _tools(prompt)
    )


async def execute_with_approvals(
    manager: ToolCallingManager,
    prompt: Prompt,
    response: ChatResponse,
    settings: ApprovalSettings,
    *,
    rounds: int,
    conversation_id: str | None,
) -> ToolExecutionResult | PendingToolCalls:
    """Run ``response``'s calls: the free ones first, then the decided ones; without an
    approver, stop with the pending calls.

    Raises:
        ApprovalError: the approver raised, timed out or returned no decision (no call
            that waited for a decision ran).
        ToolCallLimitExceeded: as the manager raises it.
    """
    assistant = _asking(response)
    if assistant is None:
        return await manager.execute_tool_calls(prompt, response)
    by_name = {t.tool_definition.name: t for t in _tools(prompt)}
    gated = [c for c in assistant.tool_calls if settings.needs_decision(c, by_name.get(c.name))]
    gated_ids = {c.id for c in gated}
    free = [c for c in assistant.tool_calls if c.id not in gated_ids]
    done: tuple[ToolResponse, ...] = ()
    direct = True
    asked: dict[str, InputRequest] = {}
    if free:
        with collecting_input() as asked:
            first = await manager.execute_tool_calls(prompt, _asking_for(assistant, free))
        if not gated and not asked:
            return first
        done = tuple(r for r in _responses(first) if r.id not in asked)
        direct = first.return_direct and not asked
    waiting = [c for c in assistant.tool_calls if c.id in gated_ids or c.id in asked]
    if settings.approver is None:
        return PendingToolCalls(
            tuple(prompt.messages),
            assistant,
            done,
            tuple(c.id for c in waiting),
            tuple(by_name),
            PendingToolCalls.plain_options(prompt.options),
            rounds,
            conversation_id,
            bool(done) and direct,
            inputs=dict(asked),
        )
    from ostinato.events import ApprovalRequired, current_event_sink

    sink = current_event_sink()
    if sink is not None:  # an approver decides inline: the turn goes on after this event
        await sink.emit(ApprovalRequired(sink.round, tuple(waiting)))
    decisions = {}
    for call in waiting:
        tool = by_name.get(call.name)
        definition = None if tool is None else tool.tool_definition
        request = ApprovalRequest(call, definition, asked.get(call.id))
        decision = decisions[call.id] = await _ask(settings, request)
        if decision.kind is ApprovalKind.DENY:  # told as it is decided, before the next
            await _tell_denied(call, decision)
    return await complete_batch(
        manager, prompt, assistant, done, direct, decisions, asked, told_denials=True
    )


async def complete_batch(
    manager: ToolCallingManager,
    prompt: Prompt,
    assistant: AssistantMessage,
    done: Sequence[ToolResponse],
    done_direct: bool,
    decisions: Mapping[str, ApprovalDecision],
    inputs: Mapping[str, InputRequest] | None = None,
    *,
    told_denials: bool = False,
) -> ToolExecutionResult:
    """Run the decided calls of ``assistant`` (``done`` answers the others) and return the
    batch's whole result: ``prompt``'s messages, the assistant message with edited
    arguments, one tool response per call in call order. A call of ``inputs`` (it asked
    for input) answered runs again with the answer (:func:`~ostinato.tools.input_answer`);
    one that asks again is answered with a note saying so. Each denied call gets its
    ``ToolFinished`` here, first, unless ``told_denials`` (told as they were decided)."""
    inputs = inputs or {}
    answers = {
        call_id: InputAnswer(inputs[call_id], decision.fields)
        for call_id, decision in decisions.items()
        if call_id in inputs and decision.kind is ApprovalKind.INPUT and decision.fields is not None
    }
    calls: list[ToolCall] = []
    for call in assistant.tool_calls:
        decision = decisions.get(call.id)
        if decision is not None and decision.kind is ApprovalKind.EDIT:
            assert decision.arguments is not None
            call = dataclasses.replace(call, arguments=decision.arguments)
        calls.append(call)
    edited = dataclasses.replace(assistant, tool_calls=tuple(calls))
    texts = {r.id: r for r in done}
    to_run = [
        c for c in calls if c.id in decisions and decisions[c.id].kind is not ApprovalKind.DENY
    ]
    denied = [c for c in calls if c.id in decisions and decisions[c.id].kind is ApprovalKind.DENY]
    for call in denied:
        texts[call.id] = ToolResponse(call.id, call.name, decisions[call.id].denial_text(call))
        if not told_denials:
            await _tell_denied(call, decisions[call.id])
    direct = done_direct and not denied
    if to_run:
        ran_ids = {r.id for r in done}
        counted: list[Message] = list(prompt.messages)
        if done:
            # The calls that ran already count towards the limits of this batch.
            counted += [_only(edited, ran_ids), ToolResponseMessage(tuple(done))]
        with collecting_input(answers) as again:
            second = await manager.execute_tool_calls(
                prompt.copy(messages=counted), _asking_for(edited, to_run)
            )
        texts.update((r.id, _asked_again(r, again)) for r in _responses(second))
        direct = direct and second.return_direct
    responses = tuple(texts[c.id] for c in calls if c.id in texts)
    return ToolExecutionResult(
        (*prompt.messages, edited, ToolResponseMessage(responses)), return_direct=direct
    )


async def _tell_denied(call: ToolCall, decision: ApprovalDecision) -> None:
    """A ``ToolFinished`` for the denied ``call`` (``failure`` ``denied``, duration 0, the
    denial as its result), to the sink of the tool calls being executed, if anybody
    listens."""
    from ostinato.events import ToolFailureKind, current_event_sink

    sink = current_event_sink()
    if sink is not None:
        text = decision.denial_text(call)
        await sink.tool_finished(call, text, 0.0, None, False, ToolFailureKind.DENIED)


async def _ask(settings: ApprovalSettings, request: ApprovalRequest) -> ApprovalDecision:
    approver = settings.approver
    assert approver is not None
    call = request.call
    try:
        async with asyncio.timeout(settings.timeout):
            answer = await _decide(approver, request)
    except TimeoutError as e:
        raise ApprovalError(
            f"the approver did not decide on call {call.id!r} to tool '{call.name}' within "
            f"{settings.timeout} s; no call waiting for a decision ran",
            tool_name=call.name,
            call_id=call.id,
        ) from e
    except Exception as e:
        raise ApprovalError(
            f"the approver raised {type(e).__name__}: {e} while deciding call {call.id!r} to "
            f"tool '{call.name}'; no call waiting for a decision ran",
            tool_name=call.name,
            call_id=call.id,
        ) from e
    if isinstance(answer, bool):
        return ApprovalDecision.approve() if answer else ApprovalDecision.deny()
    if not isinstance(answer, ApprovalDecision):
        raise ApprovalError(
            f"the approver returned {answer!r} for call {call.id!r} to tool '{call.name}'; "
            "expected an ApprovalDecision (approve(), deny(reason), edit(arguments)) or a bool",
            tool_name=call.name,
            call_id=call.id,
        )
    return _fitting(request, answer)


def _fitting(request: ApprovalRequest, decision: ApprovalDecision) -> ApprovalDecision:
    """``decision``, when it fits ``request`` (an input answer for a call that asked for
    input, its fields as the request's schema says); else an :class:`ApprovalError`."""
    call, asked = request.call, request.input
    problem = None
    if asked is None and decision.kind is ApprovalKind.INPUT:
        problem = "answers input, and the call did not ask for any"
    elif asked is not None and decision.kind in (ApprovalKind.APPROVE, ApprovalKind.EDIT):
        problem = f"is {decision.kind.value}; the call asked for input ({asked.message})"
    elif asked is not None and decision.kind is ApprovalKind.INPUT:
        try:
            asked.check(decision.fields)
        except ValueError as e:
            problem = f"does not fit what the call asked for: {e}"
    if problem is None:
        return decision
    raise ApprovalError(
        f"the approver's decision on call {call.id!r} to tool '{call.name}' {problem}; no call "
        "waiting for a decision ran",
        tool_name=call.name,
        call_id=call.id,
    )


async def _decide(approver: Approver, request: ApprovalRequest) -> object:
    if inspect.iscoroutinefunction(approver) or inspect.iscoroutinefunction(
        getattr(approver, "__call__", None)  # noqa: B004  # async callable objects
    ):
        return await approver(request)  # type: ignore[misc]  # a coroutine function
    from ostinato.runtime import run_in_tool_thread

    # A sync approver may block (a terminal prompt): it runs on the tool thread pool.
    answer: object = await run_in_tool_thread(approver, request)
    if inspect.isawaitable(answer):
        answer = await answer
    return answer


def _asked_again(response: ToolResponse, asked: Mapping[str, InputRequest]) -> ToolResponse:
    request = asked.get(response.id)
    if request is None:
        return response
    note = (
        f"Tool call '{response.name}' was not finished: after its answer it asked for more "
        f"input ({request.message}), which this turn cannot give; call it again to go on."
    )
    return ToolResponse(response.id, response.name, note)


def _asking_for(assistant: AssistantMessage, calls: Sequence[ToolCall]) -> ChatResponse:
    return ChatResponse([Generation(dataclasses.replace(assistant, tool_calls=tuple(calls)))])


def _only(assistant: AssistantMessage, ids: set[str]) -> AssistantMessage:
    return dataclasses.replace(
        assistant, tool_calls=tuple(c for c in assistant.tool_calls if c.id in ids)
    )


def _responses(result: ToolExecutionResult) -> tuple[ToolResponse, ...]:
    message = result.tool_response_message
    return () if message is None else message.responses
