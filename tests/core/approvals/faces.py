"""Runs one request spec through each of the four faces and returns the turn's answer."""

from __future__ import annotations

import asyncio
from typing import Any

from ostinato.advisors import ChatClientResponse
from ostinato.client import ChatClientRequestSpec

FACES = ("call", "acall", "stream", "astream")


def answer(spec: ChatClientRequestSpec, face: str) -> ChatClientResponse:
    """The turn's last ``ChatClientResponse`` (a stream's last chunk) on ``face``."""
    if face == "call":
        return spec.call().chat_client_response()
    if face == "acall":
        return asyncio.run(spec.call().achat_client_response())
    if face == "stream":
        return list(spec.stream().chat_client_responses())[-1]

    async def last() -> Any:
        chunks = [c async for c in spec.stream().achat_client_responses()]
        return chunks[-1]

    return asyncio.run(last())  # type: ignore[no-any-return]


def text(spec: ChatClientRequestSpec, face: str) -> str:
    """The turn's answer text on ``face`` (a stream's text is its chunks joined)."""
    if face == "call":
        return spec.call().content() or ""
    if face == "acall":
        return asyncio.run(spec.call().acontent()) or ""
    if face == "stream":
        return "".join(spec.stream().content())

    async def joined() -> str:
        return "".join([t async for t in spec.stream().acontent()])

    return asyncio.run(joined())
