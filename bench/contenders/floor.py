"""The floor: the tool loop written by hand with httpx and json, as lean as it gets.

No framework, no validation, no retries: build the body, post it, run the tool calls
(concurrently, with ``asyncio.gather``), append, repeat. The streamed variant parses the
server-sent events and merges the tool-call fragments by index; the sync variant uses
``httpx.Client`` and runs the tools in turn. Whatever a framework costs beyond this is its
overhead.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Final

import httpx

from bench.contenders._base import Contender, add, add_sync, nap
from bench.scenario import QUESTION, Scenario, history_messages

__all__ = ["Floor", "FloorAiohttp"]

_TOOLS: Final = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two integers.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "nap",
            "description": "Sleep for ms milliseconds, then return ms.",
            "parameters": {
                "type": "object",
                "properties": {"ms": {"type": "integer"}},
                "required": ["ms"],
            },
        },
    },
]
_ASYNC_TOOLS: Final[dict[str, Callable[..., Awaitable[int]]]] = {"add": add, "nap": nap}
_HEADERS: Final = {"authorization": "Bearer bench", "content-type": "application/json"}
# The same pool size as ostinato-openai's: 200 concurrent conversations need 200 sockets.
_LIMITS: Final = httpx.Limits(max_connections=1000, max_keepalive_connections=200)


def _call_add_sync(arguments: str) -> int:
    return add_sync(**json.loads(arguments))


def _start(history: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [
        {"role": role, "content": text} for role, text in history_messages(history)
    ]
    messages.append({"role": "user", "content": QUESTION})
    return messages


def _body(model: str, messages: list[dict[str, Any]], stream: bool) -> bytes:
    body: dict[str, Any] = {"model": model, "messages": messages, "tools": _TOOLS}
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return json.dumps(body).encode()


class Floor(Contender):
    """httpx + json by hand."""

    name = "floor"
    modes: ClassVar[frozenset[str]] = frozenset({"async", "stream", "sync", "async-sync-tool"})
    supports_history = True

    async def setup(self, base_url: str) -> None:
        self._url = f"{base_url}/chat/completions"
        self._client = httpx.AsyncClient(limits=_LIMITS, timeout=60.0)
        self._sync_client: httpx.Client | None = None

    async def aclose(self) -> None:
        await self._client.aclose()
        if self._sync_client is not None:
            self._sync_client.close()

    @staticmethod
    def version() -> str:
        return f"httpx {httpx.__version__}"

    async def converse(self, scenario: Scenario, mode: str, history: int) -> str:
        messages = _start(history)
        stream = mode == "stream"
        while True:
            if stream:
                message = await self._stream_once(scenario.model, messages)
            else:
                response = await self._client.post(
                    self._url, content=_body(scenario.model, messages, False), headers=_HEADERS
                )
                response.raise_for_status()
                message = json.loads(response.content)["choices"][0]["message"]
            messages.append(message)
            calls = message.get("tool_calls")
            if not calls:
                return str(message["content"])
            if mode == "async-sync-tool":
                loop = asyncio.get_running_loop()
                results = await asyncio.gather(
                    *(
                        loop.run_in_executor(
                            None, functools.partial(_call_add_sync, c["function"]["arguments"])
                        )
                        if c["function"]["name"] == "add"
                        else _ASYNC_TOOLS["nap"](**json.loads(c["function"]["arguments"]))
                        for c in calls
                    )
                )
            else:
                results = await asyncio.gather(
                    *(
                        _ASYNC_TOOLS[c["function"]["name"]](
                            **json.loads(c["function"]["arguments"])
                        )
                        for c in calls
                    )
                )
            messages.extend(
                {"role": "tool", "tool_call_id": c["id"], "content": str(r)}
                for c, r in zip(calls, results)
            )

    async def _stream_once(self, model: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        text: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        async with self._client.stream(
            "POST", self._url, content=_body(model, messages, True), headers=_HEADERS
        ) as response:
            response.raise_for_status()
            async for line in response.aiter_lines():
                if not line.startswith("data: "):
                    continue
                data = line[6:]
                if data == "[DONE]":
                    continue  # read on to the body's end: the connection is then reused
                chunk = json.loads(data)
                for choice in chunk.get("choices") or ():
                    delta = choice.get("delta") or {}
                    if delta.get("content"):
                        text.append(delta["content"])
                    for fragment in delta.get("tool_calls") or ():
                        call = calls.setdefault(
                            fragment["index"],
                            {
                                "id": "",
                                "type": "function",
                                "function": {"name": "", "arguments": ""},
                            },
                        )
                        if fragment.get("id"):
                            call["id"] = fragment["id"]
                        function = fragment.get("function") or {}
                        call["function"]["name"] += function.get("name") or ""
                        call["function"]["arguments"] += function.get("arguments") or ""
        message: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
        if calls:
            message["tool_calls"] = [calls[i] for i in sorted(calls)]
        return message

    def converse_sync(self, scenario: Scenario, history: int) -> str:
        if self._sync_client is None:
            self._sync_client = httpx.Client(limits=_LIMITS, timeout=60.0)
        client = self._sync_client
        messages = _start(history)
        while True:
            response = client.post(
                self._url, content=_body(scenario.model, messages, False), headers=_HEADERS
            )
            response.raise_for_status()
            message = json.loads(response.content)["choices"][0]["message"]
            messages.append(message)
            calls = message.get("tool_calls")
            if not calls:
                return str(message["content"])
            for call in calls:
                arguments = json.loads(call["function"]["arguments"])
                if call["function"]["name"] == "add":
                    result = add_sync(**arguments)
                else:
                    raise NotImplementedError("the sync floor runs only the add scenario")
                messages.append(
                    {"role": "tool", "tool_call_id": call["id"], "content": str(result)}
                )


class FloorAiohttp(Floor):
    """The same loop on aiohttp's engine under httpx's API (``httpx_aiohttp``)."""

    name = "floor-aiohttp"
    modes: ClassVar[frozenset[str]] = frozenset({"async", "stream"})

    async def setup(self, base_url: str) -> None:
        from httpx_aiohttp import AiohttpTransport

        await super().setup(base_url)
        await self._client.aclose()
        self._client = httpx.AsyncClient(
            limits=_LIMITS, timeout=60.0, transport=AiohttpTransport(limits=_LIMITS)
        )

    @staticmethod
    def version() -> str:
        import aiohttp
        import httpx_aiohttp  # noqa: F401 - installed with the version below

        return f"aiohttp {aiohttp.__version__} (httpx-aiohttp)"
