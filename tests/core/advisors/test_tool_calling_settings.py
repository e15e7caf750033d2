"""ToolCallingAdvisorSettings: one frozen, checked value; copy() is replace() on it; copy()
is the ToolAdvisor contract the client relies on."""

from __future__ import annotations

import dataclasses

import pytest

from ostinato import ChatClient, ToolAdvisor, ToolCallingAdvisor
from ostinato.advisors import (
    CallAdvisor,
    ChatClientRequest,
    ChatClientResponse,
    Ordered,
    ToolCallingAdvisorSettings,
    default_eligibility_checker,
)
from ostinato.testing import ScriptedChatModel
from ostinato.tools import DefaultToolCallingManager

MANAGER = DefaultToolCallingManager()


def test_defaults_match_the_advisor_defaults():
    settings = ToolCallingAdvisorSettings(MANAGER)
    assert settings.tool_execution_eligibility_checker is default_eligibility_checker
    assert settings.advisor_order == ToolCallingAdvisor.DEFAULT_ORDER
    assert settings.conversation_history_enabled is True
    assert settings.max_iterations == ToolCallingAdvisor.DEFAULT_MAX_ITERATIONS


def test_settings_are_frozen():
    settings = ToolCallingAdvisorSettings(MANAGER)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.max_iterations = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"tool_calling_manager": None}, "tool_calling_manager must not be None"),
        (
            {"tool_execution_eligibility_checker": None},
            "tool_execution_eligibility_checker must not be None",
        ),
        ({"advisor_order": Ordered.HIGHEST_PRECEDENCE}, "advisor_order must be between"),
        ({"advisor_order": True}, "advisor_order must be between"),
        ({"max_iterations": 0}, "max_iterations must be a positive int, got 0"),
        ({"max_iterations": "3"}, "max_iterations must be a positive int, got '3'"),
    ],
)
def test_bad_values_are_refused_when_made_and_when_replaced(changes, message):
    with pytest.raises(ValueError, match=message):
        ToolCallingAdvisorSettings(**{"tool_calling_manager": MANAGER, **changes})
    with pytest.raises(ValueError, match=message):
        ToolCallingAdvisorSettings(MANAGER).replace(**changes)


def test_replace_changes_only_what_it_is_given():
    settings = ToolCallingAdvisorSettings(MANAGER, max_iterations=4)
    changed = settings.replace(conversation_history_enabled=False)
    assert changed.conversation_history_enabled is False
    assert changed.max_iterations == 4 and changed.tool_calling_manager is MANAGER
    assert settings.conversation_history_enabled is True


def test_replace_names_an_unknown_setting():
    with pytest.raises(TypeError, match=r"no setting\(s\) max_rounds; known: tool_calling_manager"):
        ToolCallingAdvisorSettings(MANAGER).replace(max_rounds=3)


def test_the_advisor_exposes_its_settings_and_copy_replaces_them():
    advisor = ToolCallingAdvisor(tool_calling_manager=MANAGER, max_iterations=7)
    settings = advisor.tool_calling_settings
    assert settings == ToolCallingAdvisorSettings(MANAGER, max_iterations=7)
    assert advisor.settings() == settings.as_dict()
    copied = advisor.copy(conversation_history_enabled=False)
    assert copied.tool_calling_settings == settings.replace(conversation_history_enabled=False)
    assert advisor.tool_calling_settings is settings


def test_copy_refuses_an_unknown_setting_naming_the_class():
    with pytest.raises(TypeError, match=r"ToolCallingAdvisor.copy\(\) got unknown setting"):
        ToolCallingAdvisor().copy(max_rounds=3)


class PlainToolAdvisor(CallAdvisor, ToolAdvisor):
    """A tool advisor without settings: it keeps the default copy()."""

    async def advise_call(self, request: ChatClientRequest, chain) -> ChatClientResponse:  # type: ignore[no-untyped-def]
        return await chain.next_call(request)


def test_the_default_copy_of_a_tool_advisor_is_the_advisor_itself():
    advisor = PlainToolAdvisor()
    assert advisor.copy() is advisor
    assert advisor.copy(conversation_history_enabled=False) is advisor


def test_the_client_puts_the_copy_of_its_prototype_into_each_chain():
    copies: list[ToolCallingAdvisor] = []

    class Counting(ToolCallingAdvisor):
        def copy(self, **changes):  # type: ignore[no-untyped-def]
            new = super().copy(**changes)
            copies.append(new)
            return new

    prototype = Counting()
    client = ChatClient.builder(ScriptedChatModel(["a", "b"]), tool_advisor=prototype).build()
    assert client.prompt("1").call().content() == "a"
    assert client.prompt("2").call().content() == "b"
    assert len(copies) == 2 and all(c is not prototype for c in copies)


def test_a_tool_advisor_without_settings_is_used_as_is():
    advisor = PlainToolAdvisor()
    client = ChatClient.builder(ScriptedChatModel(["a"]), tool_advisor=advisor).build()
    assert any(a is advisor for a in client.prompt("1").effective_advisors())
    assert client.prompt("1").call().content() == "a"
