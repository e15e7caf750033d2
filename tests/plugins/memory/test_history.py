"""The pure functions placing remembered messages before a request: the conversation id,
de-duplication (Spring AI's rule and the overlap beyond it), system message first."""

from __future__ import annotations

import pytest

from ostinato.memory import CONVERSATION_ID
from ostinato.messages import AssistantMessage, SystemMessage, ToolCall, UserMessage
from ostinato_memory import MissingConversationIdError
from ostinato_memory._history import merge_history, resolve_conversation_id, system_first

S = SystemMessage("S")
U0, A0 = UserMessage("u0"), AssistantMessage("a0")
U, A1 = UserMessage("u"), AssistantMessage(None, (ToolCall("c1", "t", "{}"),))
T1 = UserMessage("stands for the tool response")


def test_conversation_id_from_context_default_or_a_clear_error():
    assert resolve_conversation_id({CONVERSATION_ID: "x"}, None, "A") == "x"
    assert resolve_conversation_id({CONVERSATION_ID: 42}, None, "A") == "42"
    assert resolve_conversation_id({CONVERSATION_ID: " "}, "d", "A") == "d"
    assert resolve_conversation_id({}, "d", "A") == "d"
    with pytest.raises(MissingConversationIdError) as error:
        resolve_conversation_id({CONVERSATION_ID: None}, None, "MyAdvisor")
    message = str(error.value)
    assert message.startswith("conversationId cannot be null")
    assert "MyAdvisor" in message and "fix:" in message
    assert "OSTINATO_MEMORY_DEFAULT_CONVERSATION_ID" in message


def test_history_is_prepended():
    assert merge_history([U0, A0], [S, U]) == [U0, A0, S, U]
    assert merge_history([], [S, U]) == [S, U]


def test_history_found_contiguously_in_the_request_is_not_prepended():
    assert merge_history([U, A1], [U, A1, T1]) == [U, A1, T1]
    assert merge_history([U, A1], [S, U, A1, T1]) == [S, U, A1, T1]
    # not contiguous: prepended
    assert merge_history([U, A1], [U, S, A1]) == [U, A1, U, S, A1]


def test_the_newest_history_repeated_at_the_request_start_is_not_repeated():
    assert merge_history([U0, A0, U, A1], [S, U, A1, T1]) == [U0, A0, U, A1, S, T1]


def test_the_request_keeps_at_least_its_last_message():
    # history ending with the very message the request sends: sent twice, as Spring AI does
    assert merge_history([U0, A0, U], [U]) == [U0, A0, U, U]


def test_only_the_first_system_message_moves_first():
    s2 = SystemMessage("S2")
    assert system_first([U0, S, A0, s2]) == [S, U0, A0, s2]
    assert system_first([S, U0]) == [S, U0]
    assert system_first([U0, A0]) == [U0, A0]
