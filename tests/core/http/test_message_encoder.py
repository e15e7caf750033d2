"""``MessageEncoder`` (the walk over a conversation, by kind) and ``PayloadCache``."""

from __future__ import annotations

import gc

import pytest

from ostinato.http import MessageEncoder, Payload, PayloadCache
from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)


class TaggingEncoder(MessageEncoder):
    """Says which method saw each message; system messages become nothing."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        self.seen: list[str] = []

    def user(self, message: UserMessage) -> list[Payload]:
        self.seen.append("user")
        return [{"user": message.text}]

    def assistant(self, message: AssistantMessage) -> list[Payload]:
        self.seen.append("assistant")
        return [{"assistant": message.text}]

    def tool_responses(self, message: ToolResponseMessage) -> list[Payload]:
        self.seen.append("tool_responses")
        return [{"tool": r.id} for r in message.responses]

    def system(self, message: SystemMessage) -> list[Payload]:
        self.seen.append("system")
        return []


class NotAMessage:
    """A message kind no encoder knows."""


CONVERSATION: tuple[Message, ...] = (
    SystemMessage("rules"),
    UserMessage("hi"),
    AssistantMessage("hello"),
    ToolResponseMessage((ToolResponse("a", "t", "1"), ToolResponse("b", "t", "2"))),
)


def test_each_kind_goes_to_its_method_in_order() -> None:
    encoder = TaggingEncoder()
    assert encoder.encode(CONVERSATION) == [
        {"user": "hi"},
        {"assistant": "hello"},
        {"tool": "a"},
        {"tool": "b"},
    ]
    assert encoder.seen == ["system", "user", "assistant", "tool_responses"]
    assert encoder.encode_message(UserMessage("again")) == [{"user": "again"}]


def test_another_kind_is_refused_with_the_four_it_takes() -> None:
    with pytest.raises(TypeError) as caught:
        TaggingEncoder().encode([NotAMessage()])  # type: ignore[list-item]
    assert str(caught.value) == (
        "TaggingEncoder cannot send a NotAMessage: expected a UserMessage, AssistantMessage, "
        "ToolResponseMessage or SystemMessage"
    )


@pytest.mark.parametrize("message", CONVERSATION, ids=lambda m: type(m).__name__)
def test_a_kind_the_subclass_does_not_write_is_not_implemented(message: Message) -> None:
    with pytest.raises(NotImplementedError):
        MessageEncoder().encode_message(message)


def test_the_cache_encodes_each_message_once_per_encoder() -> None:
    cache, encoder, other = PayloadCache(), TaggingEncoder(), TaggingEncoder()
    first = cache.payloads(CONVERSATION, encoder)
    assert first == encoder.encode(CONVERSATION)
    encoder.seen.clear()
    assert cache.payloads(CONVERSATION, encoder) == first
    assert encoder.seen == []  # every payload came from the cache
    assert cache.payloads(CONVERSATION[1:2], other) == [{"user": "hi"}]
    assert other.seen == ["user"]  # another encoder encodes again
    assert len(cache) == 4


def test_the_cache_forgets_a_message_that_goes_away() -> None:
    cache, encoder = PayloadCache(), TaggingEncoder()
    message = UserMessage("short-lived")
    cache.payloads([message], encoder)
    assert len(cache) == 1
    del message
    gc.collect()
    assert len(cache) == 0


def test_a_request_that_extends_the_last_one_encodes_only_its_new_messages() -> None:
    cache, encoder = PayloadCache(), TaggingEncoder()
    expected = TaggingEncoder().encode(CONVERSATION)
    first = cache.payloads(CONVERSATION[:3], encoder)
    first.append({"changed": "by the caller"})  # each request gets a list of its own
    encoder.seen.clear()
    assert cache.payloads(CONVERSATION, encoder) == expected
    assert encoder.seen == ["tool_responses"]  # only the new message was encoded
    assert cache.payloads(CONVERSATION, encoder) == expected
    assert cache.payloads(CONVERSATION[:2], encoder) == [{"user": "hi"}]
    assert encoder.seen == ["tool_responses"]


def test_a_message_that_goes_away_cuts_the_last_request_short_before_it() -> None:
    cache, encoder = PayloadCache(), TaggingEncoder()
    history = [UserMessage("earlier"), AssistantMessage("answer")]
    question = UserMessage("question")
    cache.payloads([*history, question], encoder)
    del question
    gc.collect()
    encoder.seen.clear()
    again = UserMessage("another question")
    assert cache.payloads([*history, again], encoder) == [
        {"user": "earlier"},
        {"assistant": "answer"},
        {"user": "another question"},
    ]
    assert encoder.seen == ["user"]  # the history's payloads were kept
    del history[:]
    gc.collect()
    assert len(cache) == 1
    assert cache.payloads([again], encoder) == [{"user": "another question"}]
