"""The recorded exchanges of ``tests/wire``, shared by every adapter's replay tests.

The corpus is part of the repository (``tests/wire``, its README names each source
project and its licence). A missing corpus or file fails the test that needs it: a fresh
clone must replay every exchange, never skip them. Each adapter's ``tests/plugins/<adapter>/wire.py`` adds what is
particular to its protocol (rebuilding the prompt a recorded body came from, the model).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl

import httpx

from ostinato.tools import ToolMetadata

__all__ = [
    "WIRE_DIR",
    "Exchange",
    "RecordedTool",
    "exchange_names",
    "load",
    "load_as",
    "no_sleep",
]

WIRE_DIR = Path(__file__).resolve().parents[1] / "wire"

E = TypeVar("E", bound="Exchange")


def exchange_names(
    folder: str, keep: Callable[[Mapping[str, Any]], bool] | None = None
) -> list[str]:
    """The file names of one corpus folder, those whose data ``keep`` accepts.

    Raises:
        FileNotFoundError: the folder is not in the corpus.
    """
    directory = WIRE_DIR / folder
    if not directory.is_dir():
        raise FileNotFoundError(f"wire corpus folder {directory} is missing")
    names = []
    for path in sorted(directory.glob("*.json")):
        if keep is not None and not keep(json.loads(path.read_text(encoding="utf-8"))):
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
    """One exchange of ``folder``."""
    return load_as(Exchange, folder, name)


def load_as(kind: type[E], folder: str, name: str) -> E:
    """One exchange of ``folder`` as ``kind``, an :class:`Exchange` subclass."""
    path = WIRE_DIR / folder / name
    return kind(name, json.loads(path.read_text(encoding="utf-8")))


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
    """A tool rebuilt from a recorded ``tools`` entry (never run)."""

    name: str
    description: str
    input_schema: Mapping[str, Any]

    @classmethod
    def functions(cls, body: Mapping[str, Any]) -> tuple[RecordedTool, ...]:
        """The tools of a recorded body that lists them as ``function`` entries."""
        return tuple(
            cls(t["function"]["name"], t["function"]["description"], t["function"]["parameters"])
            for t in body.get("tools") or ()
        )

    @property
    def tool_definition(self) -> Any:
        """Name, description and the schema as JSON text."""
        return _Definition(self.name, self.description, json.dumps(self.input_schema))

    @property
    def tool_metadata(self) -> ToolMetadata:
        """Default metadata."""
        return ToolMetadata()

    async def call(self, arguments: str, context: Any = None) -> str:
        """Never run: the model does not run tools."""
        raise AssertionError("a chat model ran a tool")
