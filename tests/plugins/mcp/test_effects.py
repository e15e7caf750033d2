"""MCP tool annotations become effect classes (the mapping documented in docs/mcp.md)."""

from __future__ import annotations

import pytest

from ostinato.tools import ToolEffect
from ostinato_mcp._tool import effect_of


@pytest.mark.parametrize(
    ("annotations", "effect"),
    [
        (None, None),  # the server says nothing: undeclared, as before
        ({}, None),
        ({"title": "Files"}, None),
        ({"readOnlyHint": True}, ToolEffect.READ_ONLY),
        ({"readOnlyHint": True, "destructiveHint": True}, ToolEffect.READ_ONLY),
        ({"readOnlyHint": False}, ToolEffect.DESTRUCTIVE),  # destructiveHint defaults true
        ({"destructiveHint": True, "idempotentHint": True}, ToolEffect.DESTRUCTIVE),
        ({"destructiveHint": False}, ToolEffect.SIDE_EFFECTING),
        ({"destructiveHint": False, "idempotentHint": True}, ToolEffect.IDEMPOTENT),
        ({"idempotentHint": True}, ToolEffect.DESTRUCTIVE),
    ],
)
def test_annotations_map_to_an_effect_class(annotations, effect) -> None:
    assert effect_of(annotations) is effect
