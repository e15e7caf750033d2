"""Ollama ``/api/chat`` exchanges (``tests/wire/ollama``).

What :mod:`tests.plugins.recorded_replay` needs of this protocol: :func:`recorded_prompt`
reads a recorded body back into a prompt and ``OllamaChatOptions``; :func:`replay_model`
talks to ollama.com (with a key) or a local server, as the recording did. One difference
is deliberate: the adapter always sends ``stream`` (Ollama streams when it is left out,
and the adapter says what it wants), so :func:`expected_body` adds ``"stream": true``
where the recording left it out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ostinato.messages import Message
from ostinato.prompt import Prompt
from ostinato_ollama import OllamaChatModel, OllamaChatOptions
from tests.fakes import wire
from tests.fakes.wire import RecordedTool
from tests.plugins.recorded_replay import RecordedConversation, replaying_model_for

__all__ = [
    "FOLDER",
    "Exchange",
    "exchange_names",
    "expected_body",
    "load",
    "recorded_prompt",
    "replay_model",
]

FOLDER = "ollama"

# Request fields OllamaChatOptions carries under the same name.
_OPTION_FIELDS = {"format", "options", "think", "keep_alive"}
_BODY_FIELDS = {"model", "messages", "stream", "tools"}


def exchange_names(*, streams: bool | None = None) -> list[str]:
    """The file names of the corpus folder (empty when the corpus is missing).

    ``streams=True`` keeps only streamed replies (NDJSON bodies), ``False`` only the rest.
    """
    keep = (
        None if streams is None else (lambda d: (d["response"]["body_text"] is not None) == streams)
    )
    return wire.exchange_names(FOLDER, keep)


@dataclass(frozen=True)
class Exchange(wire.Exchange):
    """One recorded request and response of Ollama's ``/api/chat``."""

    @property
    def is_stream(self) -> bool:
        """Whether the request asked for a stream (leaving ``stream`` out asks for one)."""
        return bool(self.request["body"].get("stream", True))

    @property
    def is_cloud(self) -> bool:
        """Whether ollama.com answered (it needs a key)."""
        return "Cloud" in self.data["source"]

    @property
    def lines(self) -> list[dict[str, Any]]:
        """The reply objects, parsed independently of the adapter."""
        if self.response["body_text"] is None:
            return [dict(self.response["body"])]
        return [json.loads(line) for line in self.response["body_text"].splitlines() if line]


def load(name: str) -> Exchange:
    """One exchange."""
    return wire.load_as(Exchange, FOLDER, name)


def expected_body(exchange: Exchange) -> dict[str, Any]:
    """The body the adapter must send: the recorded one, ``stream`` always said."""
    return {**exchange.request["body"], "stream": exchange.is_stream}


def _messages(recorded: list[Mapping[str, Any]]) -> list[Message]:
    conversation = RecordedConversation()
    for item in recorded:
        role = item["role"]
        if role == "system":
            conversation.system(item["content"])
        elif role == "user":
            conversation.user(item["content"])
        elif role == "assistant":
            calls = [
                (c.get("id", ""), c["function"]["name"], json.dumps(c["function"]["arguments"]))
                for c in item.get("tool_calls") or ()
            ]
            conversation.assistant(item["content"] or None, calls)
        else:
            conversation.tool_result(
                item.get("tool_call_id", ""), item["content"], name=item["tool_name"]
            )
    return conversation.messages


def recorded_prompt(body: Mapping[str, Any]) -> Prompt:
    """The prompt and options that make the adapter send ``body`` (``stream`` aside)."""
    tools = RecordedTool.functions(body)
    options = OllamaChatOptions(
        model=body["model"],
        tool_callbacks=tools,
        extra_body={k: v for k, v in body.items() if k not in _BODY_FIELDS | _OPTION_FIELDS},
        **{k: v for k, v in body.items() if k in _OPTION_FIELDS},
    )
    return Prompt(_messages(body["messages"]), options)


def _connection(exchange: Exchange) -> dict[str, Any]:
    """ollama.com with a key for a cloud recording, else the local server without one."""
    if exchange.is_cloud:
        return {"base_url": "https://ollama.com", "api_key": "ollama-wire-key"}
    return {"base_url": "http://localhost:11434", "api_key": None}


#: A model whose every request gets the recorded response; the requests it sent.
replay_model = replaying_model_for(OllamaChatModel, _connection)
