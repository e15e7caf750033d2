"""An A2A agent built with the a2a-sdk alone (no ostinato in it): it answers
``"echo: <text>"``, and a message asking to ``book`` waits for a ``yes`` first."""

from __future__ import annotations

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Part,
    Task,
    TaskState,
)
from starlette.applications import Starlette

__all__ = ["sdk_agent_app"]


class EchoExecutor(AgentExecutor):
    """Echoes; ``book`` asks for confirmation first."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        updater = TaskUpdater(event_queue, task_id, context_id)
        text = context.get_user_input()
        if context.current_task is None:
            await event_queue.enqueue_event(
                Task(id=task_id, context_id=context_id, status={"state": "TASK_STATE_SUBMITTED"})
            )
            if "book" in text:
                await updater.requires_input(
                    updater.new_agent_message([Part(text="Book the 9:00 train? (yes/no)")])
                )
                return
        answer = "booked" if text == "yes" else f"echo: {text}"
        await updater.add_artifact([Part(text=answer)], name="answer")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        await updater.update_status(TaskState.TASK_STATE_CANCELED)


def sdk_agent_app(url: str) -> Starlette:
    """The agent's app, its card naming ``url`` (the server's base URL)."""
    card = AgentCard(
        name="Echo Agent",
        description="echoes what it is told",
        version="1.0.0",
        supported_interfaces=[AgentInterface(url=f"{url}/rpc", protocol_binding="JSONRPC")],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="echo", description="says it back", tags=["echo"])],
    )
    handler = DefaultRequestHandler(
        agent_executor=EchoExecutor(), task_store=InMemoryTaskStore(), agent_card=card
    )
    routes = [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/rpc")]
    return Starlette(routes=routes)
