"""AdvisorParams: bundles of advisor-context entries, checked when made."""

from __future__ import annotations

import pytest

from ostinato import AdvisorParams, ChatClient
from ostinato.context_keys import CONVERSATION_ID, TOOL_CALLING_ADVISOR_AUTO_REGISTER
from ostinato.testing import ScriptedChatModel


def test_the_named_bundles_set_their_keys():
    assert AdvisorParams.conversation_id("u-1").params == {CONVERSATION_ID: "u-1"}
    assert AdvisorParams.tool_calling_advisor_auto_register(False).params == {
        TOOL_CALLING_ADVISOR_AUTO_REGISTER: False
    }
    assert AdvisorParams.param("k", 1).params == {"k": 1}
    assert AdvisorParams({"a": 1}, b=2).params == {"a": 1, "b": 2}


@pytest.mark.parametrize("bad", ["", "   ", None, 42])
def test_a_blank_or_non_string_conversation_id_is_refused(bad):
    with pytest.raises(ValueError, match="conversation_id must be a non-blank string"):
        AdvisorParams.conversation_id(bad)


@pytest.mark.parametrize("bad", ["", " ", None, 3])
def test_a_blank_or_non_string_key_is_refused(bad):
    with pytest.raises(ValueError, match="advisor param keys must be non-blank strings"):
        AdvisorParams.param(bad, "v")


def test_bundles_combine_with_the_right_side_winning():
    combined = AdvisorParams(a=1, b=2) | AdvisorParams(b=3)
    assert combined.params == {"a": 1, "b": 3}


def test_or_with_anything_else_is_not_supported():
    with pytest.raises(TypeError):
        AdvisorParams(a=1) | {"b": 2}  # type: ignore[operator]


def test_equal_bundles_are_equal_and_hash_alike():
    assert AdvisorParams(a=1) == AdvisorParams({"a": 1})
    assert hash(AdvisorParams(a=1)) == hash(AdvisorParams({"a": 1}))
    assert AdvisorParams(a=1) != AdvisorParams(a=2)
    assert AdvisorParams(a=1) != {"a": 1}
    assert repr(AdvisorParams(a=1)) == "AdvisorParams({'a': 1})"


def test_bundles_are_read_only():
    params = AdvisorParams(a=1)
    with pytest.raises(TypeError):
        params.params["a"] = 2  # type: ignore[index]


def test_request_params_win_over_the_clients_defaults():
    client = (
        ChatClient.builder(ScriptedChatModel())
        .default_advisor_params(AdvisorParams.conversation_id("default"), k="client")
        .build()
    )
    request = client.prompt("x").advisors(AdvisorParams.conversation_id("mine")).build_request()
    assert request.context[CONVERSATION_ID] == "mine"
    assert request.context["k"] == "client"
