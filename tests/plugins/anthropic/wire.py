"""Messages API exchanges (``tests/wire/anthropic``).

What :mod:`tests.plugins.recorded_replay` needs of this protocol: :func:`recorded_prompt`
reads the top-level ``system`` blocks and the content blocks of each turn back into
messages and the request fields into ``AnthropicChatOptions``; :func:`replay_model`
authenticates with :data:`API_KEY`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ostinato.messages import Message
from ostinato.prompt import Prompt
from ostinato_anthropic import AnthropicChatModel, AnthropicChatOptions
from tests.fakes import wire
from tests.fakes.wire import RecordedTool
from tests.plugins.recorded_replay import RecordedConversation, replaying_model_for

__all__ = [
    "API_KEY",
    "FOLDER",
    "Exchange",
    "exchange_names",
    "load",
    "recorded_prompt",
    "replay_model",
]

FOLDER = "anthropic"
API_KEY = "sk-ant-wire-test"

# Request fields AnthropicChatOptions carries under the same name.
_OPTION_FIELDS = {"max_tokens", "thinking", "temperature", "top_p", "top_k", "metadata"}
_BODY_FIELDS = {"model", "messages", "stream", "system", "tools", "stop_sequences"}


def exchange_names(*, streams: bool | None = None) -> list[str]:
    """The file names of the corpus folder (empty when the corpus is missing).

    ``streams=True`` keeps only successful streams, ``False`` only the rest.
    """
    keep = (
        None if streams is None else (lambda d: (d["response"]["body_text"] is not None) == streams)
    )
    return wire.exchange_names(FOLDER, keep)


Exchange = wire.Exchange


def load(name: str) -> Exchange:
    """One exchange."""
    return wire.load(FOLDER, name)


def _text(blocks: list[Mapping[str, Any]]) -> str:
    return "".join(b["text"] for b in blocks if b["type"] == "text")


def _messages(body: Mapping[str, Any]) -> list[Message]:
    conversation = RecordedConversation()
    for block in body.get("system") or ():
        conversation.system(block["text"])
    for turn in body["messages"]:
        blocks = turn["content"]
        if turn["role"] == "assistant":
            calls = [
                (b["id"], b["name"], json.dumps(b["input"]))
                for b in blocks
                if b["type"] == "tool_use"
            ]
            conversation.assistant(_text(blocks) or None, calls)
        elif any(b["type"] == "tool_result" for b in blocks):
            for b in blocks:
                conversation.tool_result(b["tool_use_id"], _text(b["content"]))
        else:
            conversation.user(_text(blocks))
    return conversation.messages


def recorded_prompt(body: Mapping[str, Any]) -> Prompt:
    """The prompt and options that make the adapter send ``body``."""
    tools = tuple(
        RecordedTool(t["name"], t["description"], t["input_schema"])
        for t in body.get("tools") or ()
    )
    options = AnthropicChatOptions(
        model=body["model"],
        tool_callbacks=tools,
        stop_sequences=body.get("stop_sequences"),
        extra_body={k: v for k, v in body.items() if k not in _BODY_FIELDS | _OPTION_FIELDS},
        **{k: v for k, v in body.items() if k in _OPTION_FIELDS},
    )
    return Prompt(_messages(body), options)


def _connection(exchange: Exchange) -> dict[str, Any]:
    """A test host and key, with the recorded query."""
    return {"api_key": API_KEY, "base_url": "https://wire.test", "extra_query": exchange.query}


#: A model whose every request gets the recorded response; the requests it sent.
replay_model = replaying_model_for(AnthropicChatModel, _connection)
