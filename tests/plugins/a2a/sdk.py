"""What the ostinato-a2a tests share: the a2a-sdk's own client on a loopback server, and
messages and events in the plain JSON the tests compare."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from a2a.client import Client, ClientConfig, create_client
from a2a.types import Message, Part, Role, SendMessageRequest
from google.protobuf import json_format

__all__ = ["collect", "plain", "sdk_client", "send", "user_message"]


@asynccontextmanager
async def sdk_client(
    url: str, token: str | None = None, *, streaming: bool = True
) -> AsyncIterator[Client]:
    """The a2a-sdk's client for the agent at ``url`` (its card read from there)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(headers=headers, timeout=30) as http:
        client = await create_client(url, ClientConfig(httpx_client=http, streaming=streaming))
        try:
            yield client
        finally:
            await client.close()


def user_message(
    text: str | None = None, *, task_id: str = "", data: Any | None = None
) -> SendMessageRequest:
    """A user message (text and/or a data part), on ``task_id`` when given."""
    parts = []
    if text is not None:
        parts.append(Part(text=text))
    if data is not None:
        part = Part()
        json_format.ParseDict(data, part.data)
        parts.append(part)
    message = Message(
        role=Role.ROLE_USER, message_id=uuid.uuid4().hex, task_id=task_id, parts=parts
    )
    return SendMessageRequest(message=message)


def plain(value: Any) -> dict[str, Any]:
    """A protobuf message as JSON (camelCase keys)."""
    return json_format.MessageToDict(value)


async def collect(client: Client, request: SendMessageRequest) -> list[dict[str, Any]]:
    """Every stream response of ``request``, as JSON."""
    return [plain(event) async for event in client.send_message(request)]


async def send(url: str, text: str, token: str | None = None) -> list[dict[str, Any]]:
    """One message to the agent at ``url``, streamed."""
    async with sdk_client(url, token) as client:
        return await collect(client, user_message(text))
