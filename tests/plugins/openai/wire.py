"""Chat Completions exchanges (``tests/wire/openai``, ``tests/wire/openai-compatible``).

What :mod:`tests.plugins.recorded_replay` needs of this protocol: :func:`recorded_prompt`
reads the roles of a recorded ``messages`` array back into messages (a run of ``tool``
messages into one tool response message) and the request fields into
``OpenAIChatOptions``; :func:`replay_model` points the model at the recorded path and query.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ostinato.messages import Message
from ostinato.prompt import Prompt
from ostinato_openai import OpenAIChatModel, OpenAIChatOptions
from tests.fakes import wire
from tests.fakes.wire import RecordedTool
from tests.plugins.recorded_replay import RecordedConversation, replaying_model_for

__all__ = [
    "Exchange",
    "exchange_names",
    "load",
    "recorded_prompt",
    "replay_model",
]


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

    ``streams=True`` keeps only successful streams (ending in ``[DONE]``), ``False`` only
    the rest.
    """

    def ok_stream(data: Mapping[str, Any]) -> bool:
        return bool(data["request"]["body"].get("stream")) and "[DONE]" in (
            data["response"]["body_text"] or ""
        )

    keep = None if streams is None else (lambda data: ok_stream(data) == streams)
    return wire.exchange_names(folder, keep)


@dataclass(frozen=True)
class Exchange(wire.Exchange):
    """One recorded request and response of the Chat Completions protocol."""

    @property
    def base_url(self) -> str:
        """The base URL under which the recorded path is ``.../chat/completions``."""
        path = self.request["path"].split("?")[0]
        return "https://wire.test" + path.removesuffix("/chat/completions")


def load(folder: str, name: str) -> Exchange:
    """One exchange."""
    return wire.load_as(Exchange, folder, name)


def _messages(recorded: list[Mapping[str, Any]]) -> list[Message]:
    conversation = RecordedConversation()
    for item in recorded:
        role = item["role"]
        if role in ("system", "developer"):
            conversation.system(item["content"])
        elif role == "user":
            conversation.user(item["content"])
        elif role == "assistant":
            calls = [
                (c["id"], c["function"]["name"], c["function"]["arguments"], c["type"])
                for c in item.get("tool_calls") or ()
            ]
            conversation.assistant(item.get("content") or None, calls)
        elif role == "tool":
            conversation.tool_result(item["tool_call_id"], item["content"])
        else:  # pragma: no cover - the corpus has no other role
            raise AssertionError(f"unexpected role {role!r}")
    return conversation.messages


def recorded_prompt(body: Mapping[str, Any]) -> Prompt:
    """The prompt and options that make the adapter send ``body``."""
    tools = RecordedTool.functions(body)
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


def _connection(exchange: Exchange) -> dict[str, Any]:
    """The recorded base URL and query, with a key."""
    return {"api_key": "sk-wire-test", "base_url": exchange.base_url, "extra_query": exchange.query}


#: A model whose every request gets the recorded response; the requests it sent.
replay_model = replaying_model_for(OpenAIChatModel, _connection)
