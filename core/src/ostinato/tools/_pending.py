"""``PendingToolCalls``: a turn stopped for approvals, as a value that can be stored.

When a call needs a decision and no approver is given, the turn ends and its state
becomes a :class:`PendingToolCalls`: the conversation so far, the round's assistant
message (all its calls), the responses of the calls that needed no decision (they ran),
the ids waiting for a decision, the options minus callables, and what the rounds so far
spent — their usage and the tool calls run before the stopped round (a resumed turn
reports the usage of all its rounds, and its usage limits count every call). It serialises to JSON
(:meth:`PendingToolCalls.to_dict`, versioned) so another process can resume the turn.

A pending value read back is data from outside: :meth:`PendingToolCalls.from_dict`
checks every field and builds plain values only; nothing in it is ever executed or
imported. Checking it against a request (tools present, decisions matching) is
:meth:`PendingToolCalls.check_resumable`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from ostinato.context_keys import PENDING_TOOL_CALLS
from ostinato.errors import ResumeError
from ostinato.messages import AssistantMessage, Message, ToolCall, ToolResponse, message_from_dict
from ostinato.model import Usage
from ostinato.tools._approval import ApprovalDecision
from ostinato.tools._input import InputRequest

__all__ = ["PendingToolCalls", "ResumedTurn"]


#: Option fields kept in the JSON form (plain values; tools and callables never are).
_PLAIN_OPTIONS: Final = frozenset(
    {
        "model",
        "temperature",
        "max_tokens",
        "top_p",
        "top_k",
        "stop_sequences",
        "frequency_penalty",
        "presence_penalty",
    }
)


@dataclass(frozen=True, slots=True)
class PendingToolCalls:
    """A turn waiting for approval decisions; resume it with
    ``client.prompt().tools(...).resume(pending, decisions)``.

    Attributes:
        messages: the conversation before the round's assistant message.
        assistant: the assistant message asking for the round's calls.
        responses: responses of the calls that needed no decision (they already ran).
        awaiting: ids of the calls waiting for a decision, in call order.
        tool_names: the names of the tools the turn had.
        options: the plain chat options of the turn (model, temperature...; no tools).
        rounds: model rounds the turn has taken (the iteration cap counts on from here).
        conversation_id: the conversation the turn belongs to, if one was named.
        return_direct: the calls that ran already may be returned directly (all of them
            return-direct tools that succeeded).
        usage: the tokens of the rounds before the stop (``None``: none reported); the
            resumed turn counts on from here, so its answer reports every round's usage.
        tool_calls: the tool calls run in the rounds before the stopped one; the resumed
            turn adds the stopped round's calls and counts on from there, so a
            ``UsageLimits.tool_calls`` limit counts the calls before and after the resume.
        inputs: the awaited calls that ran and asked for the user's input, with what they
            asked (their decision is ``ApprovalDecision.answer(fields)`` or a denial).
    """

    SCHEMA: ClassVar[str] = "ostinato.pending_tool_calls"
    SCHEMA_VERSION: ClassVar[int] = 1

    messages: tuple[Message, ...]
    assistant: AssistantMessage
    responses: tuple[ToolResponse, ...]
    awaiting: tuple[str, ...]
    tool_names: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    rounds: int = 1
    conversation_id: str | None = None
    return_direct: bool = False
    usage: Usage | None = None
    tool_calls: int = 0
    inputs: Mapping[str, InputRequest] = field(default_factory=dict)

    @staticmethod
    def of(response: Any) -> PendingToolCalls | None:
        """The pending value on a turn's answer (a ``ChatClientResponse``, e.g. the last
        chunk of a stream), or ``None`` when the turn did not stop for approvals."""
        value = getattr(response, "context", {}).get(PENDING_TOOL_CALLS)
        return value if isinstance(value, PendingToolCalls) else None

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """The calls waiting for a decision, in call order."""
        waiting = set(self.awaiting)
        return tuple(c for c in self.assistant.tool_calls if c.id in waiting)

    @staticmethod
    def plain_options(options: Any) -> dict[str, Any]:
        """The plain option fields of ``options`` that are set (what the JSON keeps)."""
        plain: dict[str, Any] = {}
        for name in sorted(_PLAIN_OPTIONS):
            value = getattr(options, name, None)
            if value is not None:
                plain[name] = list(value) if isinstance(value, tuple) else value
        return plain

    # -- checks -------------------------------------------------------------------------

    def check_resumable(
        self, decisions: Mapping[str, ApprovalDecision], tool_names: Sequence[str] | None
    ) -> None:
        """Raise :class:`~ostinato.errors.ResumeError` unless ``decisions`` decide exactly
        the awaited calls and every call that will run names one of ``tool_names``
        (``None``: tools not checked)."""
        if not isinstance(decisions, Mapping):
            raise ResumeError(
                f"decisions must map call ids to ApprovalDecision, got {type(decisions).__name__}"
            )
        for call_id, decision in decisions.items():
            if not isinstance(decision, ApprovalDecision):
                raise ResumeError(
                    f"the decision for call {call_id!r} is {decision!r}; expected an "
                    "ApprovalDecision (approve(), deny(reason) or edit(arguments))"
                )
            self._check_input(call_id, decision)
        unknown = sorted(set(decisions) - set(self.awaiting))
        if unknown:
            raise ResumeError(
                f"decisions for unknown call id(s) {', '.join(map(repr, unknown))}; the calls "
                f"waiting for a decision are {', '.join(map(repr, self.awaiting))}"
            )
        missing = [call_id for call_id in self.awaiting if call_id not in decisions]
        if missing:
            raise ResumeError(
                f"no decision for call id(s) {', '.join(map(repr, missing))}; every call "
                "waiting for a decision needs one (approve, deny or edit)"
            )
        if tool_names is None:
            return
        have = set(tool_names)
        lacking = sorted(
            {
                c.name
                for c in self.calls
                if decisions[c.id].kind.value != "deny" and c.name not in have
            }
        )
        if lacking:
            listing = ", ".join(sorted(have)) or "none"
            raise ResumeError(
                f"the pending calls need tool(s) {', '.join(lacking)}, which this request does "
                f"not have (its tools: {listing}); add them with .tools(...) before resume()"
            )

    def _check_input(self, call_id: str, decision: ApprovalDecision) -> None:
        request = self.inputs.get(call_id)
        kind = decision.kind.value
        if request is None:
            if kind == "input":
                raise ResumeError(
                    f"the decision for call {call_id!r} answers input, and that call did not "
                    "ask for any; decide it with approve(), deny(reason) or edit(arguments)"
                )
            return
        if kind not in ("input", "deny"):
            raise ResumeError(
                f"call {call_id!r} asked for input ({request.message!r}); decide it with "
                f"ApprovalDecision.answer(fields) or deny(reason), not {kind}"
            )
        if kind == "input":
            try:
                request.check(decision.fields)
            except ValueError as e:
                raise ResumeError(
                    f"the answer to call {call_id!r} does not fit what it asked for: {e}"
                ) from e

    # -- JSON ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (versioned; :meth:`from_dict` reads it back)."""
        return {
            "schema": self.SCHEMA,
            "version": self.SCHEMA_VERSION,
            "messages": [m.to_dict() for m in self.messages],
            "assistant": self.assistant.to_dict(),
            "responses": [r.to_dict() for r in self.responses],
            "awaiting": list(self.awaiting),
            "tool_names": list(self.tool_names),
            "options": dict(self.options),
            "rounds": self.rounds,
            "conversation_id": self.conversation_id,
            "return_direct": self.return_direct,
            "usage": None if self.usage is None else self.usage.to_dict(),
            "tool_calls": self.tool_calls,
            "inputs": {k: v.to_dict() for k, v in self.inputs.items()},
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str | bytes) -> PendingToolCalls:
        """Read :meth:`to_json`'s output back (see :meth:`from_dict`)."""
        try:
            data = json.loads(text)
        except (ValueError, TypeError) as e:
            raise ResumeError(f"a pending value must be JSON text; could not parse it: {e}") from e
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> PendingToolCalls:
        """Rebuild a pending value from :meth:`to_dict`'s output, checking every field.

        Raises:
            ResumeError: ``data`` is not a pending value of this schema version.
        """
        if not isinstance(data, dict) or data.get("schema") != cls.SCHEMA:
            raise ResumeError(
                f"not a pending value: expected a JSON object with schema {cls.SCHEMA!r}, "
                f"got {_brief(data)}"
            )
        version = data.get("version")
        if version != cls.SCHEMA_VERSION:
            raise ResumeError(
                f"pending value of schema version {version!r}; this ostinato reads version "
                f"{cls.SCHEMA_VERSION} (resume it with the version that stored it)"
            )
        try:
            messages = tuple(message_from_dict(m) for m in _list(data, "messages"))
            assistant = message_from_dict(_dict(data, "assistant"))
            responses = tuple(ToolResponse.from_dict(r) for r in _list(data, "responses"))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ResumeError(f"pending value has a malformed message: {e!r}") from e
        if not isinstance(assistant, AssistantMessage) or not assistant.has_tool_calls:
            raise ResumeError("pending value's 'assistant' is not an assistant message with calls")
        awaiting = tuple(_strings(data, "awaiting"))
        ids = [c.id for c in assistant.tool_calls]
        if not awaiting or any(a not in ids for a in awaiting):
            raise ResumeError(
                f"pending value's 'awaiting' ({list(awaiting)}) must name some of the "
                f"assistant's calls ({ids})"
            )
        answered = {r.id for r in responses}
        if answered & set(awaiting) or answered - set(ids):
            raise ResumeError("pending value's 'responses' do not match its calls")
        options = _dict(data, "options")
        if set(options) - _PLAIN_OPTIONS or not all(
            isinstance(v, str | int | float | list) for v in options.values()
        ):
            raise ResumeError(f"pending value's 'options' hold unexpected fields: {options!r}")
        rounds = data.get("rounds")
        if type(rounds) is not int or rounds < 1:
            raise ResumeError(f"pending value's 'rounds' must be a positive int, got {rounds!r}")
        conversation_id = data.get("conversation_id")
        if conversation_id is not None and not isinstance(conversation_id, str):
            raise ResumeError("pending value's 'conversation_id' must be a string or null")
        return_direct = data.get("return_direct", False)
        if not isinstance(return_direct, bool):
            raise ResumeError("pending value's 'return_direct' must be true or false")
        usage = _usage(data.get("usage"))
        # Absent in values stored before the field existed: no earlier calls counted.
        tool_calls = data.get("tool_calls", 0)
        if type(tool_calls) is not int or tool_calls < 0:
            raise ResumeError(
                f"pending value's 'tool_calls' must be a non-negative int, got {tool_calls!r}"
            )
        return cls(
            messages,
            assistant,
            responses,
            awaiting,
            tuple(_strings(data, "tool_names")),
            options,
            rounds,
            conversation_id,
            return_direct,
            usage,
            tool_calls,
            _inputs(data.get("inputs", {}), awaiting),
        )


@dataclass(frozen=True, slots=True)
class ResumedTurn:
    """A pending turn with its decisions, as the client hands it to the tool loop
    (under ``RESUMED_TURN``), checked against the request's tools.

    Attributes:
        pending: the turn that stopped.
        decisions: one decision per awaited call id.
    """

    pending: PendingToolCalls
    decisions: Mapping[str, ApprovalDecision]

    @property
    def assistant(self) -> AssistantMessage:
        """The round's assistant message with edited arguments in place (what the model
        is shown, and what memory stores)."""
        calls = []
        for call in self.pending.assistant.tool_calls:
            decision = self.decisions.get(call.id)
            if decision is not None and decision.arguments is not None:
                call = dataclasses.replace(call, arguments=decision.arguments)
            calls.append(call)
        return dataclasses.replace(self.pending.assistant, tool_calls=tuple(calls))


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 80 else text[:77] + "..."


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list):
        raise ResumeError(f"pending value's {key!r} must be a list, got {_brief(value)}")
    return value


def _dict(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise ResumeError(f"pending value's {key!r} must be an object, got {_brief(value)}")
    return value


_USAGE_COUNTS: Final = ("prompt_tokens", "completion_tokens", "total_tokens")
_USAGE_OPTIONAL: Final = ("cache_read_input_tokens", "cache_write_input_tokens", "reasoning_tokens")


def _usage(value: Any) -> Usage | None:
    """The ``usage`` field: absent or null (values stored before it existed) is ``None``."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - {*_USAGE_COUNTS, *_USAGE_OPTIONAL}:
        raise ResumeError(
            f"pending value's 'usage' must be null or an object of token counts "
            f"({', '.join(_USAGE_COUNTS + _USAGE_OPTIONAL)}), got {_brief(value)}"
        )
    counts = {k: value.get(k) for k in (*_USAGE_COUNTS, *_USAGE_OPTIONAL)}
    for key, count in counts.items():
        required = key in _USAGE_COUNTS
        if (count is None and required) or (
            count is not None and (type(count) is not int or count < 0)
        ):
            raise ResumeError(
                f"pending value's 'usage' {key!r} must be a non-negative int"
                f"{'' if required else ' or null'}, got {_brief(count)}"
            )
    return Usage(**counts)


def _inputs(value: Any, awaiting: Sequence[str]) -> dict[str, InputRequest]:
    """The ``inputs`` field: absent in values stored before it existed."""
    if not isinstance(value, dict) or set(value) - set(awaiting):
        raise ResumeError(
            f"pending value's 'inputs' must map awaited call ids to input requests, "
            f"got {_brief(value)}"
        )
    try:
        return {k: InputRequest.from_dict(v) for k, v in value.items()}
    except ValueError as e:
        raise ResumeError(f"pending value's 'inputs' hold a malformed request: {e}") from e


def _strings(data: Mapping[str, Any], key: str) -> list[str]:
    values = _list(data, key)
    if not all(isinstance(v, str) for v in values):
        raise ResumeError(f"pending value's {key!r} must hold strings, got {_brief(values)}")
    return values
