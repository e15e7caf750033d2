"""Recorded exchanges (``../shared/wire``) replayed through ``httpx.MockTransport``.

The corpus lives beside the repository (``<repo>/../shared/wire``); set
``SHARED_WIRE_DIR`` to use another copy. Tests that need it are skipped, saying why,
when it cannot be found.

:func:`recorded_prompt` rebuilds, from a recorded request body, the prompt and options
that should make the adapter send exactly that body; the replay then compares what the
adapter sent with what was recorded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest

from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.prompt import Prompt
from ostinato.tools import ToolMetadata
from ostinato_openai import OpenAIChatModel, OpenAIChatOptions, RetryPolicy

__all__ = [
    "WIRE_DIR",
    "Exchange",
    "RecordedTool",
    "exchange_names",
    "load",
    "no_sleep",
    "recorded_prompt",
    "replay_model",
]

_REPO_ROOT = Path(__file__).resolve().parents[3]
WIRE_DIR = Path(os.environ.get("SHARED_WIRE_DIR", _REPO_ROOT.parent / "shared" / "wire"))

# Request fields that OpenAIChatOptions carries under the same name.
_OPTION_FIELDS = {
    "n",
    "tool_choice",
    "max_completion_tokens",
    "max_tokens",
    "response_format",
    "temperature",
    "seed",
    "parallel_tool_calls",
}
_BODY_FIELDS = {"model", "messages", "stream", "stream_options", "tools", *_OPTION_FIELDS}


def exchange_names(folder: str, *, streams: bool | None = None) -> list[str]:
    """The file names of one corpus folder (empty when the corpus is missing).

    ``streams=True`` keeps only successful streams, ``False`` only the rest.
    """
    directory = WIRE_DIR / folder
    if not directory.is_dir():
        return []
    names = []
    for path in sorted(directory.glob("*.json")):
        if streams is not None:
            data = json.loads(path.read_text(encoding="utf-8"))
            ok_stream = bool(data["request"]["body"].get("stream")) and "[DONE]" in (
                data["response"]["body_text"] or ""
            )
            if ok_stream != streams:
                continue
        names.append(path.name)
    return names


@dataclass(frozen=True)
class Exchange:
    """One recorded request and response."""

    name: str
    data: Mapping[str, Any]

    @property
    def request(self) -> Mapping[str, Any]:
        """The recorded request."""
        return self.data["request"]

    @property
    def response(self) -> Mapping[str, Any]:
        """The recorded response."""
        return self.data["response"]

    @property
    def is_stream(self) -> bool:
        """Whether the request asked for a stream."""
        return bool(self.request["body"].get("stream"))

    @property
    def content(self) -> bytes:
        """The response entity body as sent."""
        if self.response["body_text"] is not None:
            return str(self.response["body_text"]).encode("utf-8")
        return json.dumps(self.response["body"]).encode("utf-8")

    @property
    def base_url(self) -> str:
        """The base URL under which the recorded path is ``.../chat/completions``."""
        path = self.request["path"].split("?")[0]
        return "https://wire.test" + path.removesuffix("/chat/completions")

    @property
    def query(self) -> dict[str, str]:
        """The recorded query parameters."""
        _, _, query = self.request["path"].partition("?")
        return dict(parse_qsl(query))

    def response_for(self, piece_size: int | None = None) -> httpx.Response:
        """The recorded response, its body served in pieces of ``piece_size`` bytes."""
        from ostinato.testing.conformance import PiecewiseStream

        return httpx.Response(
            self.response["status"],
            headers=self.response["headers"],
            stream=PiecewiseStream(self.content, piece_size),
        )


def load(folder: str, name: str) -> Exchange:
    """One exchange (skips the test when the corpus is missing)."""
    path = WIRE_DIR / folder / name
    if not path.is_file():
        pytest.skip(f"wire corpus not found at {path} (set SHARED_WIRE_DIR)")
    return Exchange(name, json.loads(path.read_text(encoding="utf-8")))


async def no_sleep(_seconds: float) -> None:
    """A retry sleep that returns at once."""


@dataclass(frozen=True)
class _Definition:
    # Duck-typed like ToolDefinition, which refuses the blank description Groq was sent.
    name: str
    description: str
    input_schema: str


@dataclass(frozen=True)
class RecordedTool:
    """A tool rebuilt from a recorded ``tools`` entry."""

    name: str
    description: str
    parameters: Mapping[str, Any]

    @property
    def tool_definition(self) -> Any:
        """Name, description and the schema as JSON text."""
        return _Definition(self.name, self.description, json.dumps(self.parameters))

    @property
    def tool_metadata(self) -> ToolMetadata:
        """Default metadata."""
        return ToolMetadata()

    async def call(self, arguments: str, context: Any = None) -> str:
        """Never run: the model does not run tools."""
        raise AssertionError("a chat model ran a tool")


def _messages(recorded: list[Mapping[str, Any]]) -> list[Message]:
    messages: list[Message] = []
    names: dict[str, str] = {}
    pending: list[ToolResponse] = []
    for item in recorded:
        role = item["role"]
        if role != "tool" and pending:
            messages.append(ToolResponseMessage(tuple(pending)))
            pending = []
        if role in ("system", "developer"):
            messages.append(SystemMessage(item["content"]))
        elif role == "user":
            messages.append(UserMessage(item["content"]))
        elif role == "assistant":
            calls = tuple(
                ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"], c["type"])
                for c in item.get("tool_calls") or ()
            )
            names.update({c.id: c.name for c in calls})
            messages.append(AssistantMessage(item.get("content") or None, calls))
        elif role == "tool":
            call_id = item["tool_call_id"]
            pending.append(ToolResponse(call_id, names.get(call_id, ""), item["content"]))
        else:  # pragma: no cover - the corpus has no other role
            raise AssertionError(f"unexpected role {role!r}")
    if pending:
        messages.append(ToolResponseMessage(tuple(pending)))
    return messages


def recorded_prompt(body: Mapping[str, Any]) -> Prompt:
    """The prompt and options that make the adapter send ``body``."""
    tools = tuple(
        RecordedTool(
            t["function"]["name"], t["function"]["description"], t["function"]["parameters"]
        )
        for t in body.get("tools") or ()
    )
    stream = bool(body.get("stream"))
    options = OpenAIChatOptions(
        model=body["model"],
        tool_callbacks=tools,  # type: ignore[arg-type]  # duck-typed tools
        stream_usage=("stream_options" in body) if stream else None,
        system_role="developer"
        if any(m["role"] == "developer" for m in body["messages"])
        else None,
        extra_body={k: v for k, v in body.items() if k not in _BODY_FIELDS},
        **{k: v for k, v in body.items() if k in _OPTION_FIELDS},
    )
    return Prompt(_messages(body["messages"]), options)


def replay_model(
    exchange: Exchange, *, piece_size: int | None = None, max_retries: int = 0
) -> tuple[OpenAIChatModel, list[httpx.Request]]:
    """A model whose every request gets the recorded response; the requests it sent."""
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return exchange.response_for(piece_size)

    model = OpenAIChatModel(
        api_key="sk-wire-test",
        base_url=exchange.base_url,
        extra_query=exchange.query,
        retry_policy=RetryPolicy(max_retries=max_retries, sleep=no_sleep),
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(handler)),
    )
    return model, sent
