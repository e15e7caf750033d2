"""``TurnRunner``: a turn request run on a worker's auto-configured client, its tools
resolved by name, its approvals waited for through the engine, its events emitted."""

from __future__ import annotations

from ostinato.advisors import Guard, GuardAdvisor, GuardDecision
from ostinato.config import build_container
from ostinato.durable import TurnRequest, TurnRunner, durable_turn
from ostinato.events import ApprovalRequired, LoopEnded, LoopEvent, TextDelta
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import ApprovalDecision, PendingToolCalls, tool
from tests.core.durable.journal import Journal

PAY = "tests.plugins.dbos.durable_tools:pay"


def script() -> ScriptedChatModel:
    return ScriptedChatModel([tool_call_response(("pay", {"turn": "t"})), "Paid."])


async def test_a_turn_waits_for_decisions_resumes_and_emits_its_events(monkeypatch):
    monkeypatch.setenv("DBOS_TEST_SERVER", "http://127.0.0.1:9")  # never reached: denied
    events: list[LoopEvent] = []
    asked: list[PendingToolCalls] = []
    model = script()
    journal = Journal()
    container = build_container(plugins=[], chat_model=model, unit_wrappers=[journal.wrapper()])
    runner = TurnRunner(container, listeners=[events.append])

    async def decide(pending: PendingToolCalls) -> dict[str, ApprovalDecision]:
        asked.append(pending)
        return {call.id: ApprovalDecision.deny("no") for call in pending.calls}

    with durable_turn("t-1"):
        answer = await runner.run(TurnRequest("Pay", tools=(PAY,)), decide)
    assert answer.text == "Paid."
    assert [c.name for c in asked[0].calls] == ["pay"]
    assert [type(e) for e in events if isinstance(e, ApprovalRequired | LoopEnded)] == [
        ApprovalRequired,
        LoopEnded,
        LoopEnded,
    ]
    # The rounds stream (their text reaches readers piece by piece); denied: no tool.
    assert [kind for kind, _ in journal.ran] == ["model_stream", "model_stream"]
    assert model.call_count == 2


async def never_asked(pending: PendingToolCalls) -> dict[str, ApprovalDecision]:
    raise AssertionError("nothing waits")


async def test_a_turn_with_history_and_no_memory_sends_the_callers_conversation():
    from ostinato import ChatClient
    from ostinato.messages import AssistantMessage, UserMessage
    from ostinato_memory import MessageChatMemoryAdvisor, MessageWindowChatMemory

    model = ScriptedChatModel(["Fine.", "Again."])
    memory = MessageWindowChatMemory()
    client = ChatClient.builder(model).default_advisors(MessageChatMemoryAdvisor(memory)).build()
    runner = TurnRunner(build_container(plugins=[], chat_client=client))
    history = (UserMessage("Hi"), AssistantMessage("Hello."))

    request = TurnRequest("How are you?", conversation_id="c", history=history, remember=False)
    with durable_turn("t-2"):
        answer = await runner.run(request, never_asked)
    assert answer.text == "Fine."
    sent = [(type(m).__name__, m.text) for m in model.prompts[0].messages]
    assert sent == [
        ("UserMessage", "Hi"),
        ("AssistantMessage", "Hello."),
        ("UserMessage", "How are you?"),
    ]
    assert await memory.get("c") == []  # the caller's conversation: nothing remembered
    with durable_turn("t-3"):
        await runner.run(TurnRequest("Hi", conversation_id="c"), never_asked)
    assert [m.text for m in await memory.get("c")] == ["Hi", "Again."]  # remembered


@tool
def tally(city: str) -> str:
    """Count a city's people."""
    return "1"


def preamble_script() -> ScriptedChatModel:
    return ScriptedChatModel(
        [
            tool_call_response(("tally", {"city": "Oslo"}), text="Let me count. ", usage=(1, 2, 3)),
            text_response("Oslo: 1.", usage=(4, 5, 9)),
        ]
    )


async def test_the_answer_is_the_final_rounds_not_every_rounds_text():
    """A round's text before its tool calls reaches readers, but the turn's answer is
    the one the call face returns in process: the final round's, with the turn's usage
    (it was every round's streamed text joined)."""
    from ostinato import ChatClient

    events: list[LoopEvent] = []
    container = build_container(plugins=[], chat_model=preamble_script())
    runner = TurnRunner(container, listeners=[events.append])

    with durable_turn("t-4"):
        answer = await runner.run(TurnRequest("Count", tools=(f"{__name__}:tally",)), never_asked)
    in_process = ChatClient.create(preamble_script()).prompt("Count").tools(tally).call()
    expected = in_process.chat_response()
    assert expected is not None
    assert answer.text == expected.text == "Oslo: 1."
    assert answer.metadata.usage == expected.metadata.usage
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(deltas) == "Let me count. Oslo: 1."  # both rounds streamed


class MaskDigits(Guard):
    """Output: digits never reach the user."""

    def check_output(self, text: str, response: object) -> GuardDecision:
        return GuardDecision.rewrite("".join("*" if c.isdigit() else c for c in text), "digit")


async def test_an_output_guard_outside_the_loop_guards_the_answer():
    """An output guard holds the stream back until the turn is complete: the answer is
    what it let through (all of the turn's text, rewritten), as the stream face gives it
    in process — never the model's own final text."""
    from ostinato import ChatClient

    def guarded() -> ChatClient:
        model = preamble_script()
        return ChatClient.builder(model).default_advisors(GuardAdvisor([MaskDigits()])).build()

    runner = TurnRunner(build_container(plugins=[], chat_client=guarded()))

    with durable_turn("t-5"):
        answer = await runner.run(TurnRequest("Count", tools=(f"{__name__}:tally",)), never_asked)
    streamed = "".join(guarded().prompt("Count").tools(tally).stream().content())
    assert answer.text == streamed == "Let me count. Oslo: *."
