"""Approvals: who decides whether a tool call runs, and what a decision says.

A call needs a decision when its tool says so (``@tool(requires_approval=True)``) or when
an :data:`ApprovalPolicy` on the client or the request says so for that call (by its
arguments, say). An :data:`Approver` given to the request decides inline; without one
the turn ends with :class:`~ostinato.tools.PendingToolCalls` and a later
``client.prompt().resume(pending, decisions)`` brings the decisions.

A call that asked for input while it ran (``_input``) waits the same way; its decision is
:meth:`ApprovalDecision.answer` with the fields asked for (or a denial). This module holds
values and types only; running a batch with decisions is ``_approval_batch``'s work.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from ostinato._tool_contract import ToolCallback, ToolDefinition, ToolEffect
from ostinato.messages import ToolCall
from ostinato.tools._input import InputRequest

__all__ = [
    "ApprovalDecision",
    "ApprovalKind",
    "ApprovalPolicy",
    "ApprovalRequest",
    "ApprovalSettings",
    "Approver",
]


class ApprovalKind(StrEnum):
    """What a decision does with a call."""

    APPROVE = "approve"
    """Run the call as the model asked."""
    DENY = "deny"
    """Do not run it; the model reads the reason as the call's result."""
    EDIT = "edit"
    """Run it with other arguments (the model sees the call with those arguments)."""
    INPUT = "input"
    """Answer the input the call asked for (its fields); the call runs again with them."""


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """A decision on one tool call: :meth:`approve`, :meth:`deny`, :meth:`edit`, or
    :meth:`answer` for a call that asked for input.

    Attributes:
        kind: approve, deny, edit or input.
        reason: why it was denied (told to the model); ``None`` otherwise.
        arguments: the JSON text of the edited arguments (``EDIT`` only).
        fields: the fields answering a call's input request (``INPUT`` only; checked
            against the request's schema before the call runs again).
    """

    kind: ApprovalKind
    reason: str | None = None
    arguments: str | None = None
    fields: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, ApprovalKind):
            raise TypeError(f"kind must be an ApprovalKind, got {self.kind!r}")
        if self.kind is ApprovalKind.EDIT:
            if not isinstance(self.arguments, str):
                raise TypeError(f"edited arguments must be JSON text, got {self.arguments!r}")
            try:
                parsed = json.loads(self.arguments)
            except ValueError as e:
                raise ValueError(
                    f"edited arguments are not JSON: {e}; got {self.arguments!r}"
                ) from e
            if not isinstance(parsed, dict):
                raise ValueError(f"edited arguments must be a JSON object, got {self.arguments!r}")
        if self.kind is ApprovalKind.INPUT and not isinstance(self.fields, Mapping):
            raise TypeError(f"an input answer's fields must be a mapping, got {self.fields!r}")

    @classmethod
    def approve(cls) -> ApprovalDecision:
        """Run the call as asked."""
        return cls(ApprovalKind.APPROVE)

    @classmethod
    def deny(cls, reason: str = "the user declined this call") -> ApprovalDecision:
        """Do not run the call; ``reason`` is what the model reads as its result."""
        return cls(ApprovalKind.DENY, reason=str(reason))

    @classmethod
    def edit(cls, arguments: str | dict[str, Any]) -> ApprovalDecision:
        """Run the call with ``arguments`` (a dict or its JSON text) instead."""
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        return cls(ApprovalKind.EDIT, arguments=text)

    @classmethod
    def answer(cls, fields: Mapping[str, Any]) -> ApprovalDecision:
        """Answer the input a call asked for with ``fields`` (the call runs again)."""
        return cls(ApprovalKind.INPUT, fields=dict(fields))

    def denial_text(self, call: ToolCall) -> str:
        """What the model reads for a denied ``call``."""
        return f"Tool call '{call.name}' was not run: denied ({self.reason})."

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        data: dict[str, Any] = {"kind": self.kind.value}
        if self.reason is not None:
            data["reason"] = self.reason
        if self.arguments is not None:
            data["arguments"] = self.arguments
        if self.fields is not None:
            data["fields"] = dict(self.fields)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> ApprovalDecision:
        """Rebuild a decision from :meth:`to_dict`'s output.

        Raises:
            ValueError: ``data`` is not such a mapping.
        """
        if not isinstance(data, dict) or data.get("kind") not in set(ApprovalKind):
            raise ValueError(
                f"an approval decision is {{'kind': 'approve'|'deny'|'edit'|'input', ...}}, "
                f"got {data!r}"
            )
        return cls(
            ApprovalKind(data["kind"]),
            data.get("reason"),
            data.get("arguments"),
            data.get("fields"),
        )


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """What an approver is asked about: one call, and the tool's definition.

    Attributes:
        call: the call as the model asked for it.
        definition: the tool's definition (name, description, input schema), or ``None``
            when the request has no tool of that name.
        input: what the call asks the user for, when it ran and asked for input (answer
            with :meth:`ApprovalDecision.answer`); ``None`` for an approval.
    """

    call: ToolCall
    definition: ToolDefinition | None
    input: InputRequest | None = None

    @property
    def arguments(self) -> Any:
        """The call's arguments parsed from JSON (the raw text when it is not JSON)."""
        try:
            return json.loads(self.call.arguments or "{}")
        except ValueError:
            return self.call.arguments


class Approver(Protocol):
    """Decides one call, sync or async: returns an :class:`ApprovalDecision`, or
    ``True``/``False`` for approve/deny. A sync approver runs on ostinato's tool thread
    pool (it may block, e.g. on a terminal prompt), never on the event loop."""

    def __call__(
        self, request: ApprovalRequest, /
    ) -> ApprovalDecision | bool | Awaitable[ApprovalDecision | bool]:
        """The decision on ``request``."""


class ApprovalPolicy(Protocol):
    """Whether a call needs a decision: ``policy(call, tool)``, ``tool`` being ``None``
    for an unknown name. When given, it replaces the tools' own ``requires_approval``."""

    def __call__(self, call: ToolCall, tool: ToolCallback | None, /) -> bool:
        """``True`` when ``call`` must wait for a decision."""


@dataclass(frozen=True, slots=True)
class ApprovalSettings:
    """The approval settings of one request (what the client puts in the advisor context).

    Attributes:
        policy: which calls need a decision (``None``: the tools' ``requires_approval``).
        approver: decides inline (``None``: the turn ends with pending calls).
        timeout: seconds an approver may take per call (``None``: no limit).
        effects: the effect classes whose calls wait for a decision whatever the policy
            says (the tool calling manager's ``EffectPolicy.approve``).
    """

    policy: ApprovalPolicy | None = None
    approver: Approver | None = None
    timeout: float | None = None
    effects: frozenset[ToolEffect] = frozenset()

    def needs_decision(self, call: ToolCall, tool: ToolCallback | None) -> bool:
        """Whether ``call`` waits for a decision."""
        if (
            self.effects
            and tool is not None
            and getattr(tool.tool_metadata, "effect", None) in self.effects
        ):
            return True
        if self.policy is not None:
            return bool(self.policy(call, tool))
        return tool is not None and bool(getattr(tool.tool_metadata, "requires_approval", False))
