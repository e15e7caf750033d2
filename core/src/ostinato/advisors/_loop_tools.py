"""How the tool loop runs a round's tools: directly, through approvals, or (on resume)
the calls a person decided; and how the calls of a cancelled batch are answered (those
that finished keep their results).

The :class:`~ostinato.advisors._tool_loop.ToolLoopTurn` decides what to do with the
result; this module only runs the tools and builds the messages. The approval machinery
is imported on first use, so a turn without approvals never loads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ostinato.context_keys import APPROVAL_SETTINGS, CONVERSATION_ID
from ostinato.messages import AssistantMessage, ToolCall, ToolResponse, ToolResponseMessage
from ostinato.prompt import Prompt, ToolCallingChatOptions

if TYPE_CHECKING:
    from ostinato.model import ChatResponse
    from ostinato.tools import PendingToolCalls, ToolCallingManager, ToolExecutionResult
    from ostinato.tools._pending import ResumedTurn

__all__ = [
    "CANCELLED_CALL_TEXT",
    "answer_cancelled_calls",
    "checked_resumed_turn",
    "run_decided_calls",
    "run_tools",
    "tool_calls",
]


def tool_calls(response: ChatResponse) -> tuple[ToolCall, ...]:
    """The calls of the first generation asking for tools (the ones the manager runs)."""
    for generation in response.generations:
        if generation.output.has_tool_calls:
            return tuple(generation.output.tool_calls)
    return ()


async def run_tools(
    manager: ToolCallingManager,
    prompt: Prompt,
    asked: ChatResponse,
    context: Mapping[str, Any],
    rounds: int,
) -> ToolExecutionResult | PendingToolCalls:
    """Run the calls ``asked`` for; the calls waiting for a decision instead when the
    request's approval settings (or a tool's ``requires_approval``, or the manager's
    ``EffectPolicy.approve`` for the tool's effect) hold them back, or when a call asks
    for input (a tool whose metadata says ``may_ask_input``)."""
    settings = context.get(APPROVAL_SETTINGS)
    options = prompt.options
    policy = getattr(manager, "_effects", None)  # the EffectPolicy given (None: defaults)
    by_effect = None if policy is None else getattr(policy, "approve", None)
    if (
        settings is None
        and not by_effect
        and not (
            isinstance(options, ToolCallingChatOptions)
            and any(
                t.tool_metadata.requires_approval
                or getattr(t.tool_metadata, "may_ask_input", False)
                for t in options.tool_callbacks
            )
        )
    ):
        return await manager.execute_tool_calls(prompt, asked)
    from ostinato.tools._approval import ApprovalSettings
    from ostinato.tools._approval_batch import execute_with_approvals, needs_approvals

    if not isinstance(settings, ApprovalSettings):
        settings = None
    if by_effect:
        import dataclasses

        settings = dataclasses.replace(settings or ApprovalSettings(), effects=by_effect)
    if not needs_approvals(settings, prompt):
        return await manager.execute_tool_calls(prompt, asked)
    conversation = context.get(CONVERSATION_ID)
    return await execute_with_approvals(
        manager,
        prompt,
        asked,
        settings or ApprovalSettings(),
        rounds=rounds,
        conversation_id=conversation if isinstance(conversation, str) else None,
    )


def checked_resumed_turn(value: object) -> ResumedTurn:
    """``value`` (a request's ``RESUMED_TURN``), checked."""
    from ostinato.context_keys import RESUMED_TURN
    from ostinato.tools._pending import ResumedTurn

    if not isinstance(value, ResumedTurn):
        raise TypeError(f"{RESUMED_TURN} must hold a ResumedTurn, got {value!r}")
    return value


async def run_decided_calls(
    manager: ToolCallingManager, prompt: Prompt, resumed: ResumedTurn
) -> ToolExecutionResult:
    """Complete the pending batch of ``resumed`` with the decisions it carries."""
    from ostinato.tools._approval_batch import complete_batch

    pending = resumed.pending
    return await complete_batch(
        manager,
        prompt,
        pending.assistant,
        pending.responses,
        pending.return_direct or not pending.responses,
        resumed.decisions,
        pending.inputs,
    )


CANCELLED_CALL_TEXT = "Cancelled: the turn was cancelled before this call finished."
"""What the model reads for a call its turn cancelled before the call finished."""


def answer_cancelled_calls(
    asked: ChatResponse, finished: Mapping[str, str]
) -> tuple[AssistantMessage, ToolResponseMessage]:
    """The tool-call message of ``asked`` and a response to each of its calls: its result
    for a call that finished (``finished``: the text by call id), else that it was
    cancelled; so the kept conversation has no call without its response (providers
    refuse those) and loses no result a tool gave."""
    assistant = next(g.output for g in asked.generations if g.output.has_tool_calls)
    answered = ToolResponseMessage(
        tuple(
            ToolResponse(c.id, c.name, finished.get(c.id, CANCELLED_CALL_TEXT))
            for c in assistant.tool_calls
        )
    )
    return assistant, answered
