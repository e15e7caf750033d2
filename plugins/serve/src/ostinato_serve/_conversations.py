"""``GET /api/conversations``, ``GET /api/conversations/<id>``: what memory holds; and
``GET /api/conversations/<id>/turn``: the conversation's turn still running.

The list answers ``404`` when the client has no memory that can list its conversations.
One conversation is shown from that memory, or, when the client has no memory advisor,
from the conversations the server keeps itself (so a reloaded page shows its
conversation again either way). The running turn lets a page reloaded while it sent a
message, before the turn's id came back, find that turn and read it again.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ostinato.memory import ChatMemoryRepository
from ostinato_serve._durable_claims import latest_unfinished
from ostinato_serve._problems import ApiError
from ostinato_serve._state import ServeState

__all__ = ["list_conversations", "running_turn", "show_conversation"]


def _repository(request: Request) -> ChatMemoryRepository:
    state: ServeState = request.app.state.ostinato
    if state.repository is None:
        raise ApiError(
            404,
            "memory_not_configured",
            "this server keeps no conversation memory it can list; configure a memory "
            "advisor with a repository (ostinato-memory: OSTINATO_MEMORY_ENABLED=true)",
        )
    return state.repository


async def list_conversations(request: Request) -> Response:
    """``{"conversations": [{"id", "messages"}]}``."""
    repository = _repository(request)
    listed = []
    for conversation_id in await repository.find_conversation_ids():
        messages = await repository.find_by_conversation_id(conversation_id)
        listed.append({"id": conversation_id, "messages": len(messages)})
    return JSONResponse({"conversations": listed})


def _unknown(conversation_id: str, where: str) -> ApiError:
    return ApiError(404, "unknown_conversation", f"no conversation {conversation_id!r} {where}")


async def show_conversation(request: Request) -> Response:
    """``{"id", "messages": [<message JSON>...]}``."""
    state: ServeState = request.app.state.ostinato
    conversation_id = request.path_params["conversation_id"]
    if not state.has_memory:
        messages = state.histories.get(conversation_id)
        if not messages:
            raise _unknown(conversation_id, "kept by this server (since it started)")
        return JSONResponse({"id": conversation_id, "messages": [m.to_dict() for m in messages]})
    repository = _repository(request)
    messages = await repository.find_by_conversation_id(conversation_id)
    if not messages and conversation_id not in await repository.find_conversation_ids():
        raise _unknown(conversation_id, "in memory")
    return JSONResponse({"id": conversation_id, "messages": [m.to_dict() for m in messages]})


async def running_turn(request: Request) -> Response:
    """``{"conversation_id", "turn_id"}``: the conversation's latest turn while it has not
    ended (in process or on the durable engine), ``"turn_id": null`` when none runs."""
    state: ServeState = request.app.state.ostinato
    conversation_id = request.path_params["conversation_id"]
    if state.durable is not None:
        turn_id = await latest_unfinished(state.durable.engine, conversation_id)
    else:
        running = state.turns.busy(conversation_id)
        turn_id = running.id if running is not None else None
    return JSONResponse({"conversation_id": conversation_id, "turn_id": turn_id})
