"""Tool calls that need the user's input before they can finish.

A tool that cannot finish without answers from the user (an MCP server's elicitation,
say) raises :class:`ToolInputRequired` with an :class:`InputRequest`: a message, the JSON
schema of the fields it asks for, and the plain state it needs to go on. The call then
waits like a call that needs approval: an approver answers inline, or the turn ends with
:class:`~ostinato.tools.PendingToolCalls` whose ``inputs`` hold the request, and
``resume(pending, {call_id: ApprovalDecision.answer(fields)})`` runs the call again. The
tool reads the answer with :func:`input_answer` (``None`` on a first run). The fields are
checked against the request's schema before the call runs again (:meth:`InputRequest.check`).

How the batch learns which call asked: while a batch may ask (its tools say so with the
metadata attribute ``may_ask_input``), it collects requests (:func:`collecting_input`).
Every tool call runs as a unit (:class:`~ostinato.units.ToolInvocation`), current while
the tool runs, so a :class:`ToolInputRequired` made inside a call records its request
under that call's id, and :func:`input_answer` finds the answer of the call running it;
outside such a batch both do nothing. This module holds values and that bookkeeping; the
batch is ``_approval_batch``'s work.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "ASKS_INPUT",
    "InputAnswer",
    "InputRequest",
    "ToolInputRequired",
    "collecting_input",
    "input_answer",
    "recorded_input_request",
]

#: The tool metadata attribute saying a tool's calls may ask for input.
ASKS_INPUT: Final = "may_ask_input"
_TYPES: Final[dict[str, type | tuple[type, ...]]] = {
    "string": str,
    "boolean": bool,
    "integer": int,
    "number": (int, float),
}


@dataclass(frozen=True, slots=True)
class InputRequest:
    """What a call asks the user for.

    Attributes:
        message: the question, for the person answering.
        schema: the JSON schema of the answer: an object of flat fields (``string``,
            ``number``, ``integer``, ``boolean``; ``enum``, ``required``, lengths and
            bounds), the shape MCP elicitation uses.
        state: plain JSON values the tool needs to go on (stored with the pending turn,
            handed back with the answer; never executed).
    """

    message: str
    schema: Mapping[str, Any]
    state: Mapping[str, Any] = field(default_factory=dict)

    def check(self, fields: Any) -> dict[str, Any]:
        """``fields`` checked against :attr:`schema`; a plain dict of them.

        Raises:
            ValueError: ``fields`` is not an object, lacks a required field, has one the
                schema does not name, or a value of the wrong type or out of bounds; the
                message names the field and what was expected.
        """
        if not isinstance(fields, Mapping):
            raise ValueError(f"the answer must be an object of fields, got {fields!r}")
        properties: Mapping[str, Any] = self.schema.get("properties") or {}
        missing = [n for n in self.schema.get("required") or () if n not in fields]
        if missing:
            raise ValueError(f"the answer lacks the required field(s) {', '.join(missing)}")
        unknown = sorted(set(fields) - set(properties))
        if unknown:
            raise ValueError(
                f"the answer has field(s) {', '.join(unknown)} the request does not ask "
                f"for; it asks for {', '.join(properties) or 'none'}"
            )
        for name, value in fields.items():
            problem = _problem(properties[name], value)
            if problem:
                raise ValueError(f"the answer's field {name!r} is {value!r}: {problem}")
        return dict(fields)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"message": self.message, "schema": dict(self.schema), "state": dict(self.state)}

    @classmethod
    def from_dict(cls, data: Any) -> InputRequest:
        """Rebuild a request from :meth:`to_dict`'s output.

        Raises:
            ValueError: ``data`` is not such an object.
        """
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("message"), str)
            or not isinstance(data.get("schema"), dict)
            or not isinstance(data.get("state", {}), dict)
        ):
            raise ValueError(
                f"an input request is {{'message': str, 'schema': {{...}}, 'state': {{...}}}}, "
                f"got {data!r}"
            )
        return cls(data["message"], data["schema"], data.get("state", {}))


def _problem(schema: Any, value: Any) -> str | None:
    if not isinstance(schema, Mapping):
        return None
    kind = schema.get("type")
    expected = _TYPES.get(kind) if isinstance(kind, str) else None
    if expected is not None and (
        not isinstance(value, expected) or (kind != "boolean" and isinstance(value, bool))
    ):
        return f"expected {'an' if kind in ('integer',) else 'a'} {kind}"
    enum = schema.get("enum")
    if enum is not None and value not in enum:
        return f"expected one of {', '.join(map(repr, enum))}"
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            return f"expected at least {schema['minLength']} characters"
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return f"expected at most {schema['maxLength']} characters"
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return f"expected at least {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"expected at most {schema['maximum']}"
    return None


@dataclass(frozen=True, slots=True)
class InputAnswer:
    """The user's answer to a call's :class:`InputRequest`.

    Attributes:
        request: what the call asked (its ``state`` included).
        fields: the answer's fields, checked against the request's schema.
    """

    request: InputRequest
    fields: Mapping[str, Any]


class ToolInputRequired(Exception):  # a signal, not an error
    """Raised by a tool: the call needs :attr:`request` answered before it can finish.

    Made inside a call of a batch that collects input requests, it records the request
    under the running call's id (the batch then stops the turn, or asks the approver).

    Attributes:
        request: what it asks.
    """

    def __init__(self, request: InputRequest) -> None:
        super().__init__(f"the call waits for input: {request.message}")
        self.request = request
        asked = _ASKED.get()
        if asked is not None:
            call_id = _running_call_id()
            if call_id is not None:
                asked[call_id] = request


_ASKED: ContextVar[dict[str, InputRequest] | None] = ContextVar(
    "ostinato_input_asked", default=None
)
_ANSWERS: ContextVar[Mapping[str, InputAnswer] | None] = ContextVar(
    "ostinato_input_answers", default=None
)


def _running_call_id() -> str | None:
    from ostinato.units import ToolInvocation, current_unit

    unit = current_unit()
    return unit.call.id if isinstance(unit, ToolInvocation) else None


def input_answer() -> InputAnswer | None:
    """For a tool while it runs: the answer to the input its call asked for, when the call
    runs again with one; ``None`` otherwise."""
    answers = _ANSWERS.get()
    if not answers:
        return None
    call_id = _running_call_id()
    return None if call_id is None else answers.get(call_id)


def recorded_input_request(call_id: str, request: Any) -> None:
    """Gather ``request`` (an :class:`InputRequest`'s JSON) for the call ``call_id``, as
    if the call had raised :class:`ToolInputRequired` again: a durable turn's replay of
    a call whose recorded outcome is that it asked for input stops the batch the same
    way."""
    asked = _ASKED.get()
    if asked is not None:
        asked[call_id] = InputRequest.from_dict(request)


@contextlib.contextmanager
def collecting_input(
    answers: Mapping[str, InputAnswer] | None = None,
) -> Iterator[dict[str, InputRequest]]:
    """Within: each call's :func:`input_answer` comes from ``answers`` (by call id), and
    the requests of the calls that raised :class:`ToolInputRequired` are gathered in the
    dict yielded (by call id)."""
    asked: dict[str, InputRequest] = {}
    token = _ASKED.set(asked)
    answers_token = _ANSWERS.set(answers or {})
    try:
        yield asked
    finally:
        _ANSWERS.reset(answers_token)
        _ASKED.reset(token)
