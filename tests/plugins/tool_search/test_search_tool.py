"""toolSearchTool: its definition (Spring AI's names) and what a call does."""

from __future__ import annotations

import json

import pytest

from ostinato.errors import ToolArgumentsError, ToolExecutionError
from ostinato.tools import ToolCallback, ToolContext, ToolDefinition
from ostinato_tool_search import (
    SEARCH_TOOL_NAME,
    SESSION_ID_TOOL_CONTEXT_KEY,
    KeywordToolIndex,
    ToolSearchTool,
)
from tests.plugins.tool_search.fakes import RecordingToolIndex


def definition(name: str, description: str) -> ToolDefinition:
    return ToolDefinition(name, description, '{"type":"object"}')


def context(session: str = "s") -> ToolContext:
    return ToolContext({SESSION_ID_TOOL_CONTEXT_KEY: session})


def test_the_schema_uses_the_references_names():
    tool = ToolSearchTool(KeywordToolIndex())
    assert isinstance(tool, ToolCallback)
    assert tool.tool_definition.name == SEARCH_TOOL_NAME == "toolSearchTool"
    schema = json.loads(tool.tool_definition.input_schema)
    assert set(schema["properties"]) == {"query", "maxResults"}
    assert schema["required"] == ["query"]
    assert schema["properties"]["query"]["type"] == "string"
    assert "context" not in schema["properties"]
    assert tool.tool_metadata.return_direct is False


async def test_a_call_answers_a_json_array_of_names():
    index = KeywordToolIndex()
    await index.index_tools(
        "s",
        [definition("weatherTool", "Current weather"), definition("calculatorTool", "Arithmetic")],
    )
    tool = ToolSearchTool(index)
    answer = await tool.call('{"query": "weather"}', context())
    assert json.loads(answer) == ["weatherTool"]
    assert json.loads(await tool.call('{"query": "nothing matches"}', context())) == []


@pytest.mark.parametrize(
    ("arguments", "configured", "expected"),
    [
        ('{"query": "q", "maxResults": 7}', 3, 7),
        ('{"query": "q"}', 3, 3),
        ('{"query": "q", "maxResults": null}', None, None),
        ('{"query": "q", "maxResults": 0}', None, 1),
    ],
)
async def test_the_models_max_results_wins(arguments, configured, expected):
    index = RecordingToolIndex()
    await ToolSearchTool(index, configured).call(arguments, context("conv"))
    assert index.searches == [("conv", "q", expected)]


async def test_a_call_without_a_session_is_an_error_the_model_can_read():
    with pytest.raises(ToolExecutionError, match="toolSearchToolSessionId"):
        await ToolSearchTool(KeywordToolIndex()).call('{"query": "q"}', ToolContext())


async def test_bad_arguments_are_reported_as_such():
    with pytest.raises(ToolArgumentsError, match="query"):
        await ToolSearchTool(KeywordToolIndex()).call('{"maxResults": 2}', context())
