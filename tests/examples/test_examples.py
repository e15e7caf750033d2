"""Every example runs as written and prints what it promises."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_example(name: str, capsys: pytest.CaptureFixture[str]) -> str:
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    return capsys.readouterr().out


def test_demo(capsys):
    out = run_example("demo.py", capsys)
    assert "→ forecast" in out and "← to_fahrenheit: 71.6" in out
    assert out.count("assistant: Lisbon is the warmest today") == 2
    assert "3 model rounds" in out
    call_section, stream_section = out.split("\n  stream():\n")
    call_lines = call_section.split("  call():\n")[1].splitlines()
    tool_lines = [line for line in call_lines if line.startswith("    ")]
    assert tool_lines == [
        '    → forecast({"city": "Paris"})',
        '    → forecast({"city": "Tokyo"})',
        '    → forecast({"city": "Lisbon"})',
        '    ← forecast: {"city": "Paris", "temp_c": 15, "sky": "cloudy"}',
        '    ← forecast: {"city": "Tokyo", "temp_c": 10, "sky": "rain"}',
        '    ← forecast: {"city": "Lisbon", "temp_c": 22, "sky": "sunny"}',
        '    → to_fahrenheit({"celsius": 22})',
        "    ← to_fahrenheit: 71.6",
    ]
    # The stream shows the same whole calls, never fragments of their arguments.
    assert [line for line in stream_section.splitlines() if line.startswith("    ")] == tool_lines


def test_weather_return_direct(capsys):
    out = run_example("weather_return_direct.py", capsys)
    assert "San Francisco is 30 °C" in out
    assert "'temp': 10" in out and "'humidity': 60" in out
    assert "model calls: 3" in out


#: The examples whose whole output is known, and what each prints, line by line.
PRINTS_EXACTLY = {
    "observing_advisor.py": [
        "round 1: sending 1 message(s)",
        "round 1: model asks for add",
        "round 2: sending 3 message(s)",
        "round 2: model asks for add",
        "round 3: sending 5 message(s)",
        "round 3: model answers",
        "2 + 3 + 10 = 15",
    ],
    "user_controlled_loop.py": [
        "ran tools; history now has 3 messages",
        "7 squared is 49.",
        "8 squared is 64.",
    ],
    "weather.py": [
        "Paris: 14 °C with light rain. Tokyo: 22 °C and sunny.",
        'get_weather -> {"city": "Paris", "temperature_c": 14, "conditions": "light rain", '
        '"wind_kmh": 18}',
        'get_weather -> {"city": "Tokyo", "temperature_c": 22, "conditions": "sunny", '
        '"wind_kmh": 9}',
    ],
    "memory_sqlite.py": [
        "user: I am planning a trip to Lisbon.",
        "assistant: Lovely! Lisbon is beautiful in spring.",
        "user: What is the weather there?",
        "assistant: It is 21 °C and sunny in Lisbon.",
        "user: Where am I going?",
        "assistant: You are going to Lisbon, where it is 21 °C and sunny.",
        "the later model was sent 5 messages:",
        "  UserMessage: I am planning a trip to Lisbon.",
        "  AssistantMessage: Lovely! Lisbon is beautiful in spring.",
        "  UserMessage: What is the weather there?",
        "  AssistantMessage: It is 21 °C and sunny in Lisbon.",
        "  UserMessage: Where am I going?",
    ],
    "approvals.py": [
        "asked about send_money({'amount': 900, 'to': 'Ann'})",
        "Sent 300 EUR to Ann; 900 EUR left.",
        "waiting for: ['send_money']",
        "Done: 50 EUR went to Bob.",
        "The turn was cancelled: the user pressed stop.",
    ],
}


@pytest.mark.parametrize("name", PRINTS_EXACTLY)
def test_the_example_prints_exactly_its_lines(name, capsys):
    assert run_example(name, capsys).splitlines() == PRINTS_EXACTLY[name]


def test_custom_tool_advisor(capsys):
    out = run_example("custom_tool_advisor.py", capsys)
    assert "Order A-17 has shipped." in out
    assert 'audit: [\'lookup_order({"order_id": "A-17"})\']' in out


def test_weather_tool_answers_any_city_the_same_way_every_time():
    namespace = runpy.run_path(str(EXAMPLES / "weather.py"))
    get_weather = namespace["get_weather"]
    first = get_weather("Reykjavík")
    assert first == get_weather("  reykjavík ") | {"city": "Reykjavík"}
    assert set(first) == {"city", "temperature_c", "conditions", "wind_kmh"}
    assert first["conditions"] in namespace["CONDITIONS"]


def test_events(capsys):
    out = run_example("events.py", capsys)
    lines = out.splitlines()
    assert lines[:5] == [
        "call, with a listener:",
        '  round 1: temperature({"city": "Lisbon"}) ...',
        "  round 1: temperature -> 21",
        "  ended: answered, 2 rounds, 62 tokens",
        "Lisbon is at 21 °C.",
    ]
    assert "  5 text pieces: 'Lisbon is at 21 °C.'" in lines
    assert any(
        line.startswith('  as JSON: {"schema_version": 1, "kind": "loop_ended"') for line in lines
    )
    assert "usage limit total_tokens=20 (used 25)" in out
    assert "temperature with the same arguments 3 times in a row" in out


async def test_served_agent(monkeypatch):
    import json

    import httpx

    monkeypatch.delenv("OSTINATO_MODEL", raising=False)
    example = runpy.run_path(str(EXAMPLES / "served_agent.py"), run_name="served_agent")
    app = example["build_app"]()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://agent") as http:
        info = (await http.get("/api/info")).json()
        chat = await http.post(
            "/v1/chat/completions",
            json={"model": "any", "messages": [{"role": "user", "content": "Weather in Tokyo?"}]},
        )
        turn = await http.post("/api/turns", json={"message": "Pay Ann 20 EUR"})
        pending = next(
            json.loads(line[6:])
            for line in turn.text.splitlines()
            if line.startswith("data: ") and "pending_id" in line
        )
        decision = {pending["calls"][0]["id"]: {"decision": "approve"}}
        resumed = await http.post(
            f"/api/approvals/{pending['pending_id']}", json={"decisions": decision}
        )
        conversations = (await http.get("/api/conversations")).json()["conversations"]
    assert info["model"] == "scripted:served-agent" and info["memory"] is True
    assert [t["name"] for t in info["tools"]] == ["get_weather", "send_money"]
    answer = chat.json()["choices"][0]["message"]["content"]
    assert answer == 'Here is what the tools said: {"city": "Tokyo", "temp_c": 22}.'
    assert pending["calls"][0]["arguments"] == '{"amount": 20, "to": "Ann"}'
    assert "sent 20 EUR to Ann" in resumed.text
    assert [c["messages"] for c in conversations] == [2]
