"""ToolSearchAdvisorSettings: the tool-search settings as one frozen, checked value."""

from __future__ import annotations

import dataclasses

import pytest

from ostinato.errors import ConfigurationError
from ostinato_tool_search import (
    DEFAULT_SYSTEM_MESSAGE_SUFFIX,
    KeywordToolIndex,
    LruEvictionStrategy,
    ToolSearchAdvisorSettings,
    ToolSearchToolCallingAdvisor,
)


def test_defaults_and_normalisation():
    settings = ToolSearchAdvisorSettings(KeywordToolIndex(), system_message_suffix="  more  ")
    assert settings.system_message_suffix == "more"
    assert isinstance(settings.eviction_strategy, LruEvictionStrategy)
    assert ToolSearchAdvisorSettings(KeywordToolIndex()).system_message_suffix == (
        DEFAULT_SYSTEM_MESSAGE_SUFFIX
    )


def test_frozen():
    settings = ToolSearchAdvisorSettings(KeywordToolIndex())
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.accumulate = False  # type: ignore[misc]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"tool_index": None}, "tool_index must not be None"),
        ({"tool_index": object()}, "tool_index must be a ToolIndex"),
        ({"eviction_strategy": object()}, "eviction_strategy must be an EvictionStrategy"),
        ({"accumulate": "yes"}, "accumulate must be True or False"),
        ({"system_message_suffix": "  "}, "system_message_suffix must be a non-blank string"),
        ({"session_id_key": ""}, "session_id_key must be a non-empty string"),
        ({"max_results": 0}, "max_results must be a positive int or None"),
    ],
)
def test_bad_values_are_refused_on_replace(changes, message):
    with pytest.raises(ConfigurationError, match=message):
        ToolSearchAdvisorSettings(KeywordToolIndex()).replace(**changes)


def test_the_advisor_copy_replaces_its_settings_and_keeps_sharing_sessions():
    advisor = ToolSearchToolCallingAdvisor(max_results=3)
    copied = advisor.copy(accumulate=False, max_iterations=4)
    assert copied.accumulate is False and advisor.accumulate is True
    assert copied.tool_search_settings == advisor.tool_search_settings.replace(accumulate=False)
    assert copied.max_results == 3 and copied.max_iterations == 4
    assert copied.indexed_sessions is advisor.indexed_sessions
    assert copied.search_tool is advisor.search_tool
    assert advisor.copy(max_results=5).search_tool is not advisor.search_tool
