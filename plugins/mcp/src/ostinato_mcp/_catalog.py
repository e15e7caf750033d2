"""What an MCP server offers besides tools: resources (listed, read, from templates) and
prompts (listed, rendered by the server, or made into an ostinato
:class:`~ostinato.prompt_template.PromptTemplate`).

Every method runs on the server's connection through :meth:`McpServer.request`, so a
failure is a :class:`~ostinato.errors.ToolExecutionError` saying what could not be done.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ostinato.errors import ToolExecutionError
from ostinato.messages import AssistantMessage, Media, Message, UserMessage
from ostinato.prompt_template import PromptTemplate

if TYPE_CHECKING:
    from mcp import types

__all__ = ["Catalog", "McpResourceContent"]

T = TypeVar("T")
_MAX_PAGES = 100


@dataclass(frozen=True, slots=True)
class McpResourceContent:
    """A resource as read: its text, and its binary parts as media to attach.

    Attach it to a prompt with ``spec.user(question + "\\n\\n" + content.text,
    *content.media)``.

    Attributes:
        uri: the resource's URI.
        text: the text parts joined by blank lines (a binary part is described by a line
            such as ``[image/png: 68 bytes]``).
        media: the binary parts, as inline :class:`~ostinato.messages.Media`.
    """

    uri: str
    text: str
    media: tuple[Media, ...] = ()


def _content(uri: str, result: types.ReadResourceResult) -> McpResourceContent:
    texts: list[str] = []
    media: list[Media] = []
    for part in result.contents:
        text = getattr(part, "text", None)
        if isinstance(text, str):
            texts.append(text)
            continue
        blob = getattr(part, "blob", None)
        mime = part.mime_type or "application/octet-stream"
        if isinstance(blob, str):
            data = base64.b64decode(blob)
            media.append(Media(mime, data=data, name=str(part.uri)))
            texts.append(f"[{mime}: {len(data)} bytes]")
    return McpResourceContent(uri, "\n\n".join(texts), tuple(media))


def _message(message: types.PromptMessage) -> Message:
    content = message.content
    text = getattr(content, "text", None)
    if not isinstance(text, str):
        resource = getattr(content, "resource", None)
        text = getattr(resource, "text", None)
    if not isinstance(text, str):
        text = f"[{getattr(content, 'type', 'content')}]"
    return UserMessage(text) if message.role == "user" else AssistantMessage(text)


async def _page(method: str, cursor: str | None, client: Any) -> Any:
    return await getattr(client, method)(cursor=cursor)


class Catalog:
    """Resources and prompts of a server (a base of :class:`~ostinato_mcp.McpServer`)."""

    __slots__ = ()

    @property
    def name(self) -> str:
        """The server's name."""
        raise NotImplementedError

    async def request(self, what: str, operation: Callable[[Any], Awaitable[T]]) -> T:
        """Run ``operation(client)`` on the server (see :class:`~ostinato_mcp.McpServer`)."""
        raise NotImplementedError

    async def _pages(self, what: str, method: str, field: str) -> list[Any]:
        found: list[Any] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            page: Any = await self.request(what, functools.partial(_page, method, cursor))
            found.extend(getattr(page, field))
            cursor = page.next_cursor
            if not cursor:
                break
        return found

    async def list_resources(self) -> list[types.Resource]:
        """The server's resources (every page)."""
        return await self._pages("list its resources", "list_resources", "resources")

    async def list_resource_templates(self) -> list[types.ResourceTemplate]:
        """The server's resource templates (``uriTemplate`` values to fill in)."""
        return await self._pages(
            "list its resource templates", "list_resource_templates", "resource_templates"
        )

    async def read_resource(self, uri: str) -> McpResourceContent:
        """Read the resource at ``uri`` (one the server lists, or a template filled in);
        a 2026-07-28 server's ``ttlMs`` lets a second read come from the cache."""
        result = await self.request(
            f"read the resource {uri!r}", lambda client: client.read_resource(uri)
        )
        return _content(uri, result)

    async def list_prompts(self) -> list[types.Prompt]:
        """The server's prompts, with the arguments each takes."""
        return await self._pages("list its prompts", "list_prompts", "prompts")

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None
    ) -> list[Message]:
        """The server's prompt ``name`` rendered with ``arguments``, as ostinato messages
        (give them to ``spec.messages(...)``)."""
        result = await self.request(
            f"get the prompt {name!r}",
            lambda client: client.get_prompt(name, dict(arguments or {})),
        )
        return [_message(m) for m in result.messages]

    async def prompt_template(self, name: str) -> PromptTemplate:
        """The server's prompt ``name`` as a :class:`~ostinato.prompt_template.PromptTemplate`
        whose ``{placeholders}`` are the prompt's arguments: give it to ``spec.user(...)``
        with the values, rendered locally at each request.

        The server renders the prompt once, each argument being a marker that becomes its
        placeholder; the text of every message is joined by blank lines.

        Raises:
            ToolExecutionError: the server has no such prompt, or refused the markers (a
                prompt that checks its arguments' form cannot be a template: use
                :meth:`get_prompt`).
        """
        prompts = {p.name: p for p in await self.list_prompts()}
        if name not in prompts:
            raise ToolExecutionError(
                f"MCP server {self.name!r} has no prompt {name!r}; its prompts: "
                f"{', '.join(sorted(prompts)) or 'none'}"
            )
        names = [a.name for a in prompts[name].arguments or ()]
        markers = {n: f"\x00{i}\x00" for i, n in enumerate(names)}
        messages = await self.get_prompt(name, markers)
        text = "\n\n".join(m.text or "" for m in messages)
        text = text.replace("{", "{{").replace("}", "}}")
        for argument, marker in markers.items():
            text = text.replace(marker, "{" + argument + "}")
        return PromptTemplate(text)
