"""What the model reads from an MCP tool result: its text, its structured content, and a
description of the images, audio and resources it holds (the bytes stay out of the
conversation). Long results are cut to a bound, saying so."""

from __future__ import annotations

import json
from typing import Any, Final

from mcp import types

__all__ = ["DEFAULT_MAX_RESULT_CHARS", "result_text"]

#: The longest result text handed to the model; the rest is cut, with a note saying so.
DEFAULT_MAX_RESULT_CHARS: Final = 100_000


def _size(data: str) -> int:
    return len(data) * 3 // 4  # base64: four characters carry three bytes


def _part(item: Any) -> str:
    if isinstance(item, types.TextContent):
        return item.text
    if isinstance(item, types.ImageContent | types.AudioContent):
        kind = "image" if isinstance(item, types.ImageContent) else "audio"
        return f"[{kind}: {item.mime_type}, {_size(item.data)} bytes]"
    if isinstance(item, types.ResourceLink):
        return f"[resource: {item.uri}{f' ({item.mime_type})' if item.mime_type else ''}]"
    if isinstance(item, types.EmbeddedResource):
        resource = item.resource
        text = getattr(resource, "text", None)
        if isinstance(text, str):
            return text
        mime = f", {resource.mime_type}" if resource.mime_type else ""
        return f"[resource: {resource.uri}{mime}]"
    return f"[{getattr(item, 'type', type(item).__name__)} content]"


def result_text(result: types.CallToolResult, max_chars: int = DEFAULT_MAX_RESULT_CHARS) -> str:
    """The text of ``result``: its content parts joined by blank lines; its structured
    content as JSON when it has no text; cut to ``max_chars``."""
    parts = [_part(item) for item in result.content]
    has_text = any(isinstance(item, types.TextContent) for item in result.content)
    if not has_text and result.structured_content is not None:
        parts.insert(0, json.dumps(result.structured_content, ensure_ascii=False))
    text = "\n\n".join(p for p in parts if p) or "Done"
    if len(text) > max_chars:
        cut = len(text) - max_chars
        text = f"{text[:max_chars]}\n[… {cut} more characters cut]"
    return text
