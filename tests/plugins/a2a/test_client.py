"""ostinato's A2A client: a remote agent as tools, against an agent built with the a2a-sdk
alone and against another ostinato process (agent A delegates to agent B inside its tool
loop, B's approval surfacing as A's pending approval); credentials stay with their
agent."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ostinato import ChatClient
from ostinato.events import LoopEnded, MemoryTurnLog, ToolFinished, ToolProgress
from ostinato.messages import ToolResponseMessage, UserMessage
from ostinato.prompt import Prompt
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import ApprovalDecision, PendingToolCalls
from ostinato_a2a import A2AToolset, RemoteAgent, delegated_usage, load_agents
from ostinato_a2a._remote import _OriginAuth
from tests.plugins.a2a.sdk_agent import sdk_agent_app
from tests.uvicorn_loopback import serve_on_loopback

B_TOKEN = "agent-b-token-0123456789"


class _Late:
    """An ASGI app set once the server's URL is known (the card names it)."""

    app: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def sdk_agent() -> Iterator[str]:
    late = _Late()
    with serve_on_loopback(late) as url:
        late.app = sdk_agent_app(url)
        yield url


@pytest.fixture(scope="module")
def agent_b() -> Iterator[str]:
    """Agent B: ``ostinato serve``'s app in another process, behind a token."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.plugins.a2a.agent_b", B_TOKEN],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdin is not None
    url = process.stdout.readline().strip()
    try:
        assert url.startswith("http://127.0.0.1:"), url
        yield url
    finally:
        process.stdin.close()
        process.wait(15)


def delegating(tool: str) -> Any:
    """Agent A's scripted model: asks ``tool`` what the user said; when the remote agent
    waits for input, answers through ``<tool>_reply``; otherwise says what it heard."""

    def answer(prompt: Prompt) -> Any:
        last = prompt.messages[-1]
        if isinstance(last, UserMessage):
            return tool_call_response((tool, {"message": last.text}), usage=(5, 1, 6))
        assert isinstance(last, ToolResponseMessage)
        heard = last.responses[0].response_data
        if "waits for input on task" in heard:
            task_id = heard.split("task '", 1)[1].split("'", 1)[0]
            reply = {"task_id": task_id, "message": "yes" if "train" in heard else "approve"}
            return tool_call_response((f"{tool}_reply", reply), usage=(5, 1, 6))
        return text_response(f"A heard: {heard}", usage=(5, 1, 6))

    return answer


async def test_a_remote_sdk_agent_answers_as_a_tool(sdk_agent: str):
    toolset = A2AToolset([sdk_agent])
    client = ChatClient.create(ScriptedChatModel(responder=delegating("echo_agent")))
    events = [e async for e in client.prompt("hello there").tools(toolset).stream().aevents()]
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [(f.call.name, f.result) for f in finished] == [("echo_agent", "echo: hello there")]
    assert events[-1].response.text == "A heard: echo: hello there"
    (tool, reply_tool) = toolset.get_tool_callbacks()
    assert "echoes what it is told" in tool.tool_definition.description
    assert "echo: says it back" in tool.tool_definition.description
    assert reply_tool.tool_metadata.requires_approval
    assert toolset.replies[-1].state == "completed"


async def test_a_remote_sdk_agent_waiting_for_input_is_a_pending_approval(sdk_agent: str):
    toolset = A2AToolset([RemoteAgent(sdk_agent, name="trains")])
    client = ChatClient.create(ScriptedChatModel(responder=delegating("trains")))
    stopped = await client.prompt("book a train").tools(toolset).call().achat_client_response()
    pending = PendingToolCalls.of(stopped)
    assert pending is not None
    (call,) = pending.calls
    assert call.name == "trains_reply" and '"yes"' in call.arguments
    resumed = (
        await client.prompt()
        .tools(toolset)
        .resume(pending, {call.id: ApprovalDecision.approve()})
        .call()
        .achat_client_response()
    )
    assert resumed.chat_response.text == "A heard: booked"


async def test_agent_a_delegates_to_agent_b_in_another_process(agent_b: str):
    toolset = A2AToolset([RemoteAgent(agent_b, name="b", token=B_TOKEN)])
    client = ChatClient.create(ScriptedChatModel(responder=delegating("b")))
    log = MemoryTurnLog("turn-a")
    spec = client.prompt("weather in Paris?").tools(toolset).listener(log)
    events = [e async for e in spec.stream().aevents()]
    log.end()
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [(f.call.name, f.result) for f in finished] == [("b", "Done: Paris: 21C, sunny.")]
    ended = events[-1]
    assert isinstance(ended, LoopEnded)
    assert ended.response is not None and ended.response.text == "A heard: Done: Paris: 21C, sunny."
    remote = toolset.replies[-1]
    assert [e.kind for e in remote.events if e.kind.startswith("tool_")] == [
        "tool_call_requested",
        "tool_started",
        "tool_progress",
        "tool_finished",
    ]
    assert remote.usage is not None and remote.usage.total_tokens == 25

    # B's task, as it went, is in A's turn: progress of A's call to b, in A's turn log.
    kinds = [e.kind for e in events]
    told = [e for e in events if isinstance(e, ToolProgress)]
    assert told and {e.call.name for e in told} == {"b"}
    assert kinds.index("tool_started") < kinds.index("tool_progress")
    assert kinds.index("tool_finished") > len(kinds) - 1 - kinds[::-1].index("tool_progress")
    assert [e for e in log.read() if e.kind == "tool_progress"] == told
    data = [dict(e.data or {}) for e in told]
    assert {d["source"] for d in data} == {"a2a"} and {d["agent"] for d in data} == {"b"}
    remote_kinds = [d["event"]["kind"] for d in data if "event" in d]
    assert remote_kinds[:4] == [
        "round_finished",
        "tool_call_requested",
        "tool_started",
        "tool_progress",
    ]
    # B's own tool reported progress: it reaches A, inside the remote event.
    (b_progress,) = [d["event"] for d in data if d.get("event", {}).get("kind") == "tool_progress"]
    assert b_progress["text"] == "asking the station in Paris"
    assert b_progress["fraction"] == 0.5
    answer = "".join(e.text for e, d in zip(told, data) if d.get("artifact") == "answer")
    assert "Done: Paris: 21C, sunny." in answer
    # B's usage: told last, and summed over the turn by delegated_usage; A's own usage
    # counts A's model rounds only.
    assert data[-1]["usage"]["total_tokens"] == 25 and data[-1]["state"] == "completed"
    delegated = delegated_usage(events)
    assert delegated is not None and delegated.total_tokens == 25
    assert ended.usage.total_tokens == 12


async def test_agent_bs_approval_stops_agent_as_turn_until_decided(agent_b: str):
    toolset = A2AToolset([RemoteAgent(agent_b, name="b", token=B_TOKEN)])
    client = ChatClient.create(ScriptedChatModel(responder=delegating("b")))
    stopped = await client.prompt("pay Ann").tools(toolset).call().achat_client_response()
    pending = PendingToolCalls.of(stopped)
    assert pending is not None
    (call,) = pending.calls
    assert call.name == "b_reply"
    waiting = toolset.replies[-1]
    assert waiting.state == "input-required"
    assert waiting.data[0]["pending_calls"][0]["name"] == "pay"
    decided = {call.id: ApprovalDecision.approve()}
    resumed = (
        await client.prompt().tools(toolset).resume(pending, decided).call().achat_client_response()
    )
    assert resumed.chat_response.text == "A heard: Done: paid 5 to Ann."


async def test_a_wrong_token_is_a_failed_tool_call(agent_b: str):
    toolset = A2AToolset([RemoteAgent(agent_b, name="b", token="wrong")])
    client = ChatClient.create(ScriptedChatModel(responder=delegating("b")))
    # The card is open to anyone; the call is not.
    events = [e async for e in client.prompt("hello").tools(toolset).stream().aevents()]
    (finished,) = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.error == "A2AClientError" and "401" in finished.result


async def test_the_credential_goes_to_the_configured_origin_only():
    seen: list[tuple[str, str | None]] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.host, request.headers.get("authorization")))
        return httpx.Response(200)

    auth = _OriginAuth(httpx.URL("https://agent.example/"), {"Authorization": "Bearer t"})
    async with httpx.AsyncClient(auth=auth, transport=httpx.MockTransport(record)) as http:
        await http.get("https://agent.example/a2a")
        await http.get("https://elsewhere.example/a2a")
        await http.get("http://agent.example/a2a")
    assert seen == [
        ("agent.example", "Bearer t"),
        ("elsewhere.example", None),
        ("agent.example", None),
    ]


def test_an_agents_file_names_agents_and_reads_tokens_from_the_environment(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "agents.json"
    path.write_text(
        '{"agents": {"billing": {"url": "https://b.example/", "tokenEnv": "B_TOKEN", '
        '"timeout": 5}}}'
    )
    monkeypatch.setenv("B_TOKEN", "secret")
    (agent,) = load_agents(path)
    assert (agent.name, agent.url, agent.timeout) == ("billing", "https://b.example", 5.0)
    monkeypatch.delenv("B_TOKEN")
    with pytest.raises(ValueError, match="B_TOKEN, which is not set"):
        load_agents(path)


def test_the_a2a_tool_set_gives_auto_configured_clients_the_remote_agent(
    sdk_agent: str, monkeypatch: pytest.MonkeyPatch
):
    import ostinato_a2a.plugin
    from ostinato.config import build_container

    monkeypatch.setenv("OSTINATO_TOOLS__ENABLED", "a2a")
    monkeypatch.setenv("OSTINATO_A2A_AGENTS", sdk_agent)
    model = ScriptedChatModel(responder=delegating("echo_agent"))
    container = build_container(plugins=[ostinato_a2a.plugin], chat_model=model)
    answer = container.chat_client().prompt("hi").call().content()
    assert answer == "A heard: echo: hi"


def test_the_a2a_tool_set_without_agents_says_what_to_set(monkeypatch: pytest.MonkeyPatch):
    import ostinato_a2a.plugin
    from ostinato.config import build_container

    monkeypatch.setenv("OSTINATO_TOOLS__ENABLED", "a2a")
    monkeypatch.delenv("OSTINATO_A2A_AGENTS", raising=False)
    with pytest.raises(ValueError, match="OSTINATO_A2A_AGENTS"):
        build_container(
            plugins=[ostinato_a2a.plugin], chat_model=ScriptedChatModel([])
        ).chat_client()
