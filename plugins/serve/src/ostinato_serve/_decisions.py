"""Approval decisions in serve's JSON form (``{"decisions": {call_id: {"decision":
"approve" | "deny" | "edit", ...}}}``), checked against the calls a turn waits for."""

from __future__ import annotations

from typing import Any

from ostinato.tools import ApprovalDecision
from ostinato_serve._problems import ApiError

__all__ = ["parse_decisions"]

_KINDS = ("approve", "deny", "edit")


def _decision(call_id: str, value: Any) -> ApprovalDecision:
    if not isinstance(value, dict) or value.get("decision") not in _KINDS:
        raise ApiError(
            422,
            "invalid_decision",
            f'the decision for call {call_id!r} must be an object with "decision": '
            f'"approve", "deny" or "edit", got {value!r}',
        )
    kind = value["decision"]
    if kind == "approve":
        return ApprovalDecision.approve()
    if kind == "deny":
        reason = value.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise ApiError(422, "invalid_decision", f"'reason' for call {call_id!r} must be text")
        return ApprovalDecision.deny(reason) if reason else ApprovalDecision.deny()
    arguments = value.get("arguments")
    if not isinstance(arguments, dict):
        raise ApiError(
            422,
            "invalid_decision",
            f"an edit of call {call_id!r} needs 'arguments', a JSON object, got {arguments!r}",
        )
    return ApprovalDecision.edit(arguments)


def parse_decisions(data: dict[str, Any], awaiting: tuple[str, ...]) -> dict[str, ApprovalDecision]:
    """One decision per awaited call id, from ``{"decisions": {id: {...}}}``.

    Raises:
        ApiError: ``422`` for a missing or unknown call id, or a malformed decision.
    """
    given = data.get("decisions")
    if not isinstance(given, dict):
        raise ApiError(
            422,
            "invalid_request",
            f"expected 'decisions', an object of call id -> decision, got {given!r}",
        )
    missing = [call_id for call_id in awaiting if call_id not in given]
    if missing:
        raise ApiError(
            422,
            "missing_decision",
            f"no decision for call id(s) {', '.join(missing)}; every waiting call needs one "
            f"(waiting: {', '.join(awaiting)})",
        )
    unknown = [call_id for call_id in given if call_id not in awaiting]
    if unknown:
        raise ApiError(
            422,
            "unknown_call",
            f"decisions for call id(s) {', '.join(map(str, unknown))} that do not wait "
            f"(waiting: {', '.join(awaiting)})",
        )
    return {call_id: _decision(call_id, given[call_id]) for call_id in awaiting}
