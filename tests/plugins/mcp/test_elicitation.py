"""A server's elicitation during a tool call as the turn's pending approval: the demo
server's ``book`` asks who the seats are for (2026-07-28: an ``InputRequiredResult``);
the turn stops with the request, and the answer, checked against the server's schema,
resumes the call, in this process or another; an approver answers inline; a
handshake-era connection declines."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ostinato import ChatClient, ToolCallingAdvisor
from ostinato.errors import ApprovalError, ResumeError
from ostinato.messages import ToolResponseMessage
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import ApprovalDecision, ApprovalRequest, PendingToolCalls
from ostinato_mcp import McpServer

pytestmark = pytest.mark.asyncio(loop_scope="module")
ROOT = Path(__file__).resolve().parents[3]


def echo(prompt):
    message = prompt.messages[-1]
    assert isinstance(message, ToolResponseMessage)
    return text_response(" | ".join(r.response_data for r in message.responses))


def client_for(model):
    return ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()


def booking_model():
    return ScriptedChatModel(
        [tool_call_response(("book", {"show": "Hamlet"}), ("add", {"a": 2, "b": 2})), echo]
    )


async def test_an_elicitation_stops_the_turn_and_the_answer_resumes_the_call(demo_url):
    server = McpServer(name="demo", url=demo_url)
    try:
        model = booking_model()
        client = client_for(model)
        response = (
            await client.prompt("Book Hamlet")
            .tools(server_tools := await server.list_tools())
            .call()
            .achat_client_response()
        )
        pending = PendingToolCalls.of(response)
        assert pending is not None
        book = next(c for c in pending.assistant.tool_calls if c.name == "book")
        assert pending.awaiting == (book.id,)
        asked = pending.inputs[book.id]
        assert asked.message == "Who are the seats for, and how many?"
        assert asked.schema["required"] == ["name"]
        assert asked.schema["properties"]["count"]["maximum"] == 8
        assert [r.response_data for r in pending.responses] == ["4"]  # the free call ran

        spec = client.prompt().tools(server_tools)
        with pytest.raises(ResumeError, match=r"field 'count' is 'two': expected an integer"):
            spec.resume(
                pending, {book.id: ApprovalDecision.answer({"name": "Ada", "count": "two"})}
            )
        with pytest.raises(ResumeError, match=r"lacks the required field.*name"):
            spec.resume(pending, {book.id: ApprovalDecision.answer({"count": 2})})
        with pytest.raises(ResumeError, match="asked for input"):
            spec.resume(pending, {book.id: ApprovalDecision.approve()})

        answer = ApprovalDecision.answer({"name": "Ada", "count": 2})
        resumed = client.prompt().tools(server_tools).resume(pending, {book.id: answer})
        text = await resumed.call().acontent()
        assert text == "booked 2 seat(s) for Ada at Hamlet | 4"
    finally:
        await server.aclose()


async def test_a_denied_elicitation_does_not_run_the_call_again(demo_url):
    server = McpServer(name="demo", url=demo_url)
    try:
        tools = await server.list_tools()
        model = ScriptedChatModel([tool_call_response(("book", {"show": "Lear"})), echo])
        client = client_for(model)
        pending = PendingToolCalls.of(
            await client.prompt("go").tools(tools).call().achat_client_response()
        )
        assert pending is not None
        [call_id] = pending.awaiting
        resumed = (
            client.prompt()
            .tools(tools)
            .resume(pending, {call_id: ApprovalDecision.deny("no seats today")})
        )
        assert "denied (no seats today)" in (await resumed.call().acontent() or "")
    finally:
        await server.aclose()


async def test_an_approver_answers_the_elicitation_inline(demo_url):
    server = McpServer(name="demo", url=demo_url)
    seen: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest):
        seen.append(request)
        return ApprovalDecision.answer({"name": "Grace"})

    try:
        tools = await server.list_tools()
        model = booking_model()
        client = client_for(model)
        spec = client.prompt("go").tools(tools).approver(approver)
        assert await spec.call().acontent() == "booked 1 seat(s) for Grace at Hamlet | 4"
        assert [r.call.name for r in seen] == ["book"]
        assert seen[0].input is not None and "seats" in seen[0].input.message

        async def wrong(request):
            return ApprovalDecision.approve()

        model = booking_model()
        spec = client_for(model).prompt("go").tools(tools).approver(wrong)
        with pytest.raises(ApprovalError, match="is approve; the call asked for input"):
            await spec.call().acontent()
    finally:
        await server.aclose()


async def test_the_answer_resumes_a_turn_stopped_in_another_process(demo_url):
    first_half = textwrap.dedent(
        f"""
        import asyncio
        from ostinato import ChatClient, ToolCallingAdvisor
        from ostinato.testing import ScriptedChatModel, tool_call_response
        from ostinato.tools import PendingToolCalls
        from ostinato_mcp import McpServer

        async def main():
            server = McpServer(name="demo", url={demo_url!r})
            model = ScriptedChatModel([tool_call_response(("book", {{"show": "Faust"}}))])
            client = ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()
            tools = await server.list_tools()
            response = await client.prompt("Book Faust").tools(tools).call().achat_client_response()
            print(PendingToolCalls.of(response).to_json())
            await server.aclose()

        asyncio.run(main())
        """
    )
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", first_half],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    stored = done.stdout.strip().splitlines()[-1]
    pending = PendingToolCalls.from_json(stored)
    [call_id] = pending.awaiting
    assert json.loads(stored)["inputs"][call_id]["state"]["tool"] == "book"

    server = McpServer(name="demo", url=demo_url)
    try:
        model = ScriptedChatModel([echo])
        client = client_for(model)
        tools = await server.list_tools()
        answer = ApprovalDecision.answer({"name": "Lin", "count": 3})
        text = (
            await client.prompt().tools(tools).resume(pending, {call_id: answer}).call().acontent()
        )
        assert text == "booked 3 seat(s) for Lin at Faust"
    finally:
        await server.aclose()


async def test_a_handshake_connection_declines_the_elicitation(demo_url):
    async with McpServer(name="demo", url=demo_url, protocol="legacy") as server:
        assert await server.call_tool("book", {"show": "Hamlet"}) == "booking for Hamlet declined"
