"""A server's request for the user's input during a tool call, as the call's pending
approval.

On a 2026-07-28 connection a server that needs input answers ``tools/call`` with an
``InputRequiredResult``: its ``inputRequests`` (here: one form elicitation) and an
opaque ``requestState``. Nothing waits on the server, so the call becomes
:class:`~ostinato.tools.ToolInputRequired`: the turn stops with the elicitation's
message and schema as the call's :class:`~ostinato.tools.InputRequest` (the request
state kept in its ``state``), in this process or stored as JSON for another. The
answer (``ApprovalDecision.answer(fields)``, checked against the schema) makes the call
run again, carrying the elicitation's result and the echoed state; the server goes on
from there. A server that asks again is asked again the same way.

A server whose ``requestState`` carries only state (no input requests) is retried at
once, a few times, as the SDK does. Sampling and roots requests are not answered
(sampling is deprecated and not built): such a call fails, saying so.

On a handshake connection (2025-11-25 and older) an elicitation is a request the server
sends while the call waits; it cannot outlive the connection, so it is declined
(:func:`decline_elicitation`) and the server's tool decides what a decline means.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from mcp import types

from ostinato.errors import ToolExecutionError
from ostinato.tools import InputAnswer, InputRequest, ToolInputRequired

__all__ = ["call_answering_input", "decline_elicitation"]

_STATE_ONLY_ROUNDS: Final = 10


async def decline_elicitation(context: Any, params: Any) -> types.ElicitResult:
    """The answer to a handshake-era ``elicitation/create``: declined (see the module)."""
    return types.ElicitResult(action="decline")


def _responses(
    server: str, tool: str, answer: InputAnswer | None
) -> tuple[dict[str, Any] | None, str | None]:
    """The input responses and request state an answer carries for ``server``'s
    ``tool`` (none: the call runs for the first time)."""
    if answer is None:
        return None, None
    state = answer.request.state
    if state.get("server") != server or state.get("tool") != tool:
        return None, None
    key, request_state = state.get("key"), state.get("request_state")
    if not isinstance(key, str):
        return None, None
    elicited = types.ElicitResult(action="accept", content=dict(answer.fields))
    return {key: elicited}, request_state if isinstance(request_state, str) else None


def _input_request(
    server: str, tool: str, result: types.InputRequiredResult
) -> InputRequest | None:
    """What the user is asked, or ``None`` for a state-only result.

    Raises:
        ToolExecutionError: the server asks for something other than one form
            elicitation.
    """
    asked = result.input_requests or {}
    if not asked:
        return None
    forms = {
        k: r
        for k, r in asked.items()
        if isinstance(r, types.ElicitRequest)
        and isinstance(r.params, types.ElicitRequestFormParams)
    }
    if len(forms) != len(asked) or len(forms) != 1:
        kinds = sorted({getattr(r, "method", type(r).__name__) for r in asked.values()})
        raise ToolExecutionError(
            f"MCP server {server!r} asks for {len(asked)} input(s) ({', '.join(kinds)}) during "
            f"the call to {tool!r}; ostinato answers one form elicitation at a time"
        )
    [(key, request)] = forms.items()
    params = request.params
    assert isinstance(params, types.ElicitRequestFormParams)
    schema = params.requested_schema
    schema_dict = schema if isinstance(schema, dict) else schema.model_dump(by_alias=True)
    return InputRequest(
        params.message,
        schema_dict,
        {"server": server, "tool": tool, "key": key, "request_state": result.request_state},
    )


async def call_answering_input(
    client: Any,
    server: str,
    tool: str,
    arguments: dict[str, Any],
    answer: InputAnswer | None,
    meta: dict[str, Any] | None = None,
) -> Any:
    """``tools/call`` on ``client`` (a connected ``mcp.Client``), carrying ``answer`` when
    the call runs again with one; raises :class:`~ostinato.tools.ToolInputRequired` when
    the server asks for input. The result is a ``CallToolResult``, or the handle of a
    task (see ``_tasks``).

    Raises:
        ToolInputRequired: the server asks the user (the call waits for the answer).
        ToolExecutionError: it asks for something ostinato does not answer.
    """
    responses, request_state = _responses(server, tool, answer)
    for _ in range(_STATE_ONLY_ROUNDS):
        result = await client.session.call_tool(
            tool,
            arguments,
            input_responses=responses,
            request_state=request_state,
            meta=meta,
            allow_input_required=True,
            allow_claimed=True,
        )
        if not isinstance(result, types.InputRequiredResult):
            return result
        request = _input_request(server, tool, result)
        if request is not None:
            raise ToolInputRequired(request)
        responses, request_state = None, result.request_state
        await asyncio.sleep(0.05)
    raise ToolExecutionError(
        f"MCP server {server!r} kept answering the call to {tool!r} with state only "
        f"({_STATE_ONLY_ROUNDS} rounds); it never finished"
    )
