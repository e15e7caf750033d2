"""A2A push notifications: a task's updates are POSTed to the webhook its client set,
with the client's token, on loopback (``push="any"``); under the default (``public``) a
webhook on a loopback address is refused; ``off`` offers none."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from a2a.types import SendMessageConfiguration, TaskPushNotificationConfig
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ostinato_a2a import create_a2a_app
from ostinato_serve import ServeSettings
from tests.plugins.a2a.sdk import plain, sdk_client, user_message
from tests.plugins.serve.served import agent, weather
from tests.uvicorn_loopback import serve_on_loopback

TOKEN = "a2a-push-token-0123456789"


class Webhook:
    """A loopback webhook keeping what it was sent."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, Any], str | None]] = []
        self.completed = threading.Event()

    async def receive(self, request: Request) -> Response:
        token = request.headers.get("X-A2A-Notification-Token")
        self.received.append((await request.json(), token))
        if "TASK_STATE_COMPLETED" in self.states():
            self.completed.set()
        return Response(status_code=204)

    def states(self) -> list[str]:
        found = []
        for body, _ in self.received:
            for key in ("task", "statusUpdate"):
                state = body.get(key, {}).get("status", {}).get("state")
                if state is not None:
                    found.append(state)
        return found


@pytest.fixture(scope="module")
def webhook() -> Iterator[tuple[Webhook, str]]:
    hook = Webhook()
    with serve_on_loopback(
        Starlette(routes=[Route("/hook", hook.receive, methods=["POST"])])
    ) as url:
        yield hook, f"{url}/hook"


def _request(text: str, url: str) -> Any:
    request = user_message(text)
    request.configuration.CopyFrom(
        SendMessageConfiguration(
            task_push_notification_config=TaskPushNotificationConfig(url=url, token="hook-token"),
            return_immediately=True,
        )
    )
    return request


async def test_a_tasks_updates_reach_its_webhook(webhook: tuple[Webhook, str]) -> None:
    hook, url = webhook
    app = create_a2a_app(agent(), tools=[weather], settings=ServeSettings(token=TOKEN), push="any")
    with serve_on_loopback(app) as served:
        async with sdk_client(served, TOKEN, streaming=False) as client:
            card = plain(await client.get_card()) if hasattr(client, "get_card") else None
            (first,) = [plain(e) async for e in client.send_message(_request("weather?", url))]
            task_id = first["task"]["id"]
            assert await asyncio.to_thread(hook.completed.wait, 30)
    if card is not None:
        assert card["capabilities"]["pushNotifications"] is True
    bodies = [body for body, _ in hook.received]
    assert {token for _, token in hook.received} == {"hook-token"}
    ids = {b[k].get("taskId") or b[k].get("id") for b in bodies for k in b}
    assert ids == {task_id}
    states = hook.states()
    assert states[-1] == "TASK_STATE_COMPLETED" and "TASK_STATE_WORKING" in states
    answers = [b["artifactUpdate"]["artifact"] for b in bodies if "artifactUpdate" in b]
    assert answers[-1]["parts"][0]["text"] == "Done: Paris: 21C, sunny."


@pytest.mark.parametrize("push", ["public", "off"])
async def test_a_loopback_webhook_is_refused_unless_any_is_set(
    webhook: tuple[Webhook, str], push: str
) -> None:
    _, url = webhook
    app = create_a2a_app(agent(), settings=ServeSettings(token=TOKEN), push=push)
    with serve_on_loopback(app) as served:
        async with sdk_client(served, TOKEN, streaming=False) as client:
            (done,) = [plain(e) async for e in client.send_message(user_message("hello"))]
            config = TaskPushNotificationConfig(task_id=done["task"]["id"], url=url)
            expected = r"(?i)invalid push notification url" if push == "public" else r"(?i)push"
            with pytest.raises(Exception, match=expected):
                await client.create_task_push_notification_config(config)


def test_an_unknown_push_setting_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="expected 'public'"):
        create_a2a_app(agent(), push="sometimes")
