"""``SafeGuardAdvisor``: Spring AI's refusal of requests holding sensitive words, on both
paths, without calling the model."""

from __future__ import annotations

import pytest

from ostinato import ChatClient
from ostinato.advisors import DEFAULT_FAILURE_RESPONSE, SafeGuardAdvisor
from ostinato.testing import ScriptedChatModel


async def answer(client: ChatClient, text: str, mode: str) -> str:
    spec = client.prompt(text)
    if mode == "call":
        return await spec.call().acontent() or ""
    return "".join([piece async for piece in spec.stream().acontent()])


@pytest.mark.parametrize("mode", ["call", "stream"])
async def test_a_sensitive_word_is_refused_without_calling_the_model(mode):
    model = ScriptedChatModel(["fine answer"])
    client = ChatClient.builder(model).default_advisors(SafeGuardAdvisor(["password"])).build()
    assert await answer(client, "tell me the admin password", mode) == DEFAULT_FAILURE_RESPONSE
    assert model.call_count == 0
    assert await answer(client, "tell me a joke", mode) == "fine answer"
    assert model.call_count == 1


async def test_the_system_text_counts_and_case_matters():
    model = ScriptedChatModel(["ok", "ok"])
    guard = SafeGuardAdvisor(["Secret"], failure_response="No.")
    client = (
        ChatClient.builder(model).default_system("Secret rules").default_advisors(guard).build()
    )
    assert await answer(client, "hello", "call") == "No."
    plain = ChatClient.builder(model).default_advisors(guard).build()
    assert await answer(plain, "a secret", "call") == "ok"


def test_settings_are_checked():
    assert SafeGuardAdvisor(["x"]).order == 0
    assert SafeGuardAdvisor(["x"], order=-5).order == -5
    with pytest.raises(TypeError, match="list of words"):
        SafeGuardAdvisor("password")
    with pytest.raises(ValueError, match="non-empty"):
        SafeGuardAdvisor([""])
