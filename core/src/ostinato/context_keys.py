"""The advisor-context keys ostinato itself reads and writes, in one place.

The advisor context (``ChatClientRequest.context``, ``ChatClientResponse.context``) is a
mapping of string keys; these are the keys with a meaning to the core. User code sets the
first two through :class:`~ostinato.client.AdvisorParams`
(``AdvisorParams.conversation_id(...)``,
``AdvisorParams.tool_calling_advisor_auto_register(False)``); the others are written by
the core's advisors and read by advisors that need them.

The old import paths keep working: ``ostinato.memory.CONVERSATION_ID``,
``ostinato.client.TOOL_CALLING_ADVISOR_AUTO_REGISTER`` and ``ostinato.advisors.OUTPUT_FORMAT``
/ ``SENT_OPTIONS`` / ``TOOL_LOOP_ROUND`` are these same objects. This module imports
nothing, so any layer may use it.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "APPROVAL_SETTINGS",
    "CANCEL_SCOPE",
    "CONVERSATION_ID",
    "EVENT_SINK",
    "NATIVE_STRUCTURED_OUTPUT",
    "OUTPUT_FORMAT",
    "OUTPUT_SCHEMA",
    "PENDING_TOOL_CALLS",
    "RESUMED_TURN",
    "SENT_OPTIONS",
    "STEERING",
    "TOOL_CALLING_ADVISOR_AUTO_REGISTER",
    "TOOL_LOOP_ROUND",
    "USAGE_LIMITS",
]

#: The conversation memory advisors use (same value as Spring AI's).
CONVERSATION_ID: Final = "chat_memory_conversation_id"

#: ``False`` stops the ``ChatClient`` from adding its tool advisor to this call.
TOOL_CALLING_ADVISOR_AUTO_REGISTER: Final = (
    "ostinato.chat_client.tool_calling.advisor.auto_register"
)

#: ``True``: ``entity()`` asks the provider to enforce the JSON schema (as
#: ``entity(..., native=True)``); set with ``AdvisorParams.native_structured_output()``.
NATIVE_STRUCTURED_OUTPUT: Final = "ostinato.chat_client.structured_output.native"

#: Format instructions to append to the last user message (structured output).
OUTPUT_FORMAT: Final = "ostinato.chat_client.output_format"

#: A JSON schema (its JSON text) the model must enforce itself (native structured output):
#: the model advisors put it on the options as ``output_schema``.
OUTPUT_SCHEMA: Final = "ostinato.chat_client.output_schema"

#: Set on model responses: the options the model actually received.
SENT_OPTIONS: Final = "ostinato.model.sent_options"

#: Set by the tool loop on each streamed chunk: the model round (from 1) it belongs to, so
#: that stream aggregators can keep the final round's answer only.
TOOL_LOOP_ROUND: Final = "ostinato.tool_loop.round"

#: Set by the client on a request somebody watches: the run's
#: :class:`~ostinato.events.EventSink`, which the tool loop emits its events into.
EVENT_SINK: Final = "ostinato.events.sink"

#: Set by a request's ``.usage_limits(...)`` (or a client's default): the
#: :class:`~ostinato.advisors.UsageLimits` of each turn, winning over the tool advisor's.
USAGE_LIMITS: Final = "ostinato.tool_loop.usage_limits"

#: Set by the ``ChatClient`` from ``.approver(...)``/``.approval_policy(...)``: the
#: request's ``ApprovalSettings``, read by the tool loop.
APPROVAL_SETTINGS: Final = "ostinato.tool_loop.approval_settings"

#: Set by the tool loop on the answer of a turn that stopped for approvals: its
#: ``PendingToolCalls`` (memory advisors store nothing for such a turn).
PENDING_TOOL_CALLS: Final = "ostinato.tool_loop.pending_tool_calls"

#: Set by ``ChatClientRequestSpec.resume(...)``: the ``ResumedTurn`` the tool loop
#: continues (memory advisors store the whole turn once it ends).
RESUMED_TURN: Final = "ostinato.tool_loop.resumed_turn"

#: Set by ``ChatClientRequestSpec.cancel_scope(...)``: the ``CancelScope`` whose
#: ``cancel()`` ends the turn with reason ``cancelled``.
CANCEL_SCOPE: Final = "ostinato.tool_loop.cancel_scope"

#: Set by ``ChatClientRequestSpec.steering(...)``: the ``Steering`` inbox whose messages
#: join the turn at its next round boundary.
STEERING: Final = "ostinato.tool_loop.steering"
