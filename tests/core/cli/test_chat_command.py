"""``ostinato chat``: one-shot turns, tools, JSON, memory across invocations, errors."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from ostinato.messages import SystemMessage, ToolResponseMessage, UserMessage
from ostinato.model import ChatResponse
from tests.core.cli import local_plugin
from tests.core.cli.cli_process import run_main
from tests.fakes import scripted_provider
from tests.fakes.scripted_provider import WEATHER_ANSWER

WEATHER_PY = str(Path(__file__).resolve().parents[3] / "examples" / "weather.py")
QUESTION = "What is the weather in Paris and in Tokyo?"


def chat(capsys, *argv: str) -> tuple[int, str, str]:
    return run_main(capsys, "chat", *argv)


def weather(capsys, *extra: str) -> tuple[int, str, str]:
    return chat(capsys, "--model", "scripted:weather", "--tools", WEATHER_PY, QUESTION, *extra)


def without_timings(text: str) -> str:
    return re.sub(r"\d+\.\d\d? s\b", "N s", text)


def test_streams_the_answer_and_shows_each_tool_call_and_the_usage(scripted, capsys):
    code, out, err = weather(capsys)
    assert code == 0
    assert out == WEATHER_ANSWER + "\n"
    assert without_timings(err).splitlines() == [
        '→ get_weather(city="Paris")',
        '→ get_weather(city="Tokyo")',
        '← get_weather(city="Paris") N s: {"city": "Paris", "temperature_c": 14, '
        '"conditions": "light rain", "wind_kmh": 18}',
        '← get_weather(city="Tokyo") N s: {"city": "Tokyo", "temperature_c": 22, '
        '"conditions": "sunny", "wind_kmh": 9}',
        "usage: 280 prompt + 36 completion = 316 tokens; 2 model rounds; N s",
    ]
    assert "thinking" not in err  # no progress indicator when stderr is not a terminal
    second = scripted_provider.CREATED[-1].prompts[1]
    assert isinstance(second.messages[-1], ToolResponseMessage)


def test_no_stream_shows_the_same(scripted, capsys):
    streamed = without_timings("\n".join(weather(capsys)[1:]))
    code, out, err = weather(capsys, "--no-stream")
    assert code == 0
    assert without_timings(f"{out}\n{err}") == streamed


def test_json_prints_the_final_chat_response(scripted, capsys):
    code, out, err = weather(capsys, "--json")
    assert code == 0
    response = ChatResponse.from_dict(json.loads(out))
    assert response.text == WEATHER_ANSWER
    assert response.usage.total_tokens == 316
    assert 'get_weather(city="Tokyo")' in err
    code, out, _ = weather(capsys, "--json", "--no-stream")
    assert ChatResponse.from_dict(json.loads(out)).text == WEATHER_ANSWER


def test_system_message_and_question_words_are_joined(scripted, capsys):
    code, out, _ = chat(capsys, "-m", "scripted:echo", "-s", "Be brief.", "hello", "there")
    assert code == 0
    assert out == "You said 'hello there'; I see 0 earlier message(s).\n"
    messages = scripted_provider.CREATED[-1].prompts[0].messages
    assert messages[0] == SystemMessage("Be brief.")
    assert messages[-1] == UserMessage("hello there")


def test_the_question_may_come_from_stdin(scripted, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("piped question\n"))
    code, out, _ = chat(capsys, "--model", "scripted:echo")
    assert code == 0
    assert out == "You said 'piped question'; I see 0 earlier message(s).\n"


def test_conversation_continues_in_a_second_invocation(scripted, capsys, monkeypatch, tmp_path):
    scripted.add("ostinato-memory", entry_points={"memory": "ostinato_memory.plugin"})
    database = tmp_path / "chats.sqlite3"
    monkeypatch.setenv("OSTINATO_MEMORY_SQLITE_PATH", str(database))
    first = chat(capsys, "-m", "scripted:echo", "--conversation", "trip", "I am Ada.")
    second = chat(capsys, "-m", "scripted:echo", "--conversation", "trip", "Who am I?")
    other = chat(capsys, "-m", "scripted:echo", "--conversation", "other", "Who am I?")
    assert first[:2] == (0, "You said 'I am Ada.'; I see 0 earlier message(s).\n")
    assert second[:2] == (0, "You said 'Who am I?'; I see 2 earlier message(s).\n")
    assert other[:2] == (0, "You said 'Who am I?'; I see 0 earlier message(s).\n")
    remembered = scripted_provider.CREATED[1].prompts[0].messages
    assert [m.text for m in remembered] == [
        "I am Ada.",
        "You said 'I am Ada.'; I see 0 earlier message(s).",
        "Who am I?",
    ]
    assert database.is_file()
    import os

    # --model and --conversation reach the settings handed to the container, not the
    # process environment.
    assert "OSTINATO_MEMORY_ENABLED" not in os.environ
    assert "OSTINATO_MODEL" not in os.environ


def test_conversation_needs_the_memory_plugin(scripted, capsys):
    code, out, err = chat(capsys, "-m", "scripted:echo", "--conversation", "trip", "hi")
    assert (code, out) == (2, "")
    assert err == (
        "ostinato: error: --conversation needs conversation memory, and no plugin registers "
        "it; fix: pip install ostinato-memory (or leave out --conversation)\n"
    )


def test_no_model_configured(scripted, capsys):
    code, out, err = chat(capsys, "hi")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "ostinato: error: no chat model is configured (installed providers: scripted); fix: "
        "pass --model provider:model or set OSTINATO_MODEL (e.g. "
        "OSTINATO_MODEL=openai:gpt-4.1-mini), or pip install ostinato-llamacpp for a local "
        "model that needs no key"
    ]


def test_unknown_provider_lists_the_installed_ones(scripted, capsys, monkeypatch):
    code, _, err = chat(capsys, "--model", "nope:big", "hi")
    assert code == 2
    assert err.splitlines() == [
        "ostinato: error: unknown model provider 'nope' in --model 'nope:big' (installed "
        "providers: scripted); fix: use an installed provider (`ostinato models` lists them), "
        "or install its plugin: pip install ostinato-nope"
    ]
    monkeypatch.setenv("OSTINATO_MODEL", "other:x")
    code, _, err = chat(capsys, "hi")
    assert "unknown model provider 'other' in OSTINATO_MODEL 'other:x'" in err
    code, _, err = chat(capsys, "--model", "scripted", "hi")
    assert err.startswith("ostinato: error: --model 'scripted' is not provider:model; fix:")


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        pytest.param(
            ["--model", "scripted:auth", "hi"],
            "ostinato: error: scripted refused the credentials (HTTP 401): Incorrect API key "
            "provided; fix: set OSTINATO_SCRIPTED_API_KEY to a valid key (`ostinato config` "
            "shows where the current one comes from)",
            id="authentication-failure",
        ),
        pytest.param(
            ["--model", "scripted:unreachable", "--no-stream", "hi"],
            "ostinato: error: cannot reach the scripted model server: scripted: connection to "
            "http://127.0.0.1:9/v1 failed (connection refused); fix: start the server, or point "
            "OSTINATO_SCRIPTED_BASE_URL at it (`ostinato config` shows the current value)",
            id="unreachable-server",
        ),
    ],
)
def test_a_model_failure_is_one_line_with_the_fix(scripted, capsys, argv, line):
    code, out, err = chat(capsys, *argv)
    assert (code, out) == (1, "")
    assert err.splitlines() == [line]


def test_unknown_tool_and_bad_arguments_are_shown_as_errors(scripted, capsys):
    code, out, err = chat(capsys, "-m", "scripted:unknown-tool", "-t", WEATHER_PY, "fly me")
    assert (code, out) == (0, "I cannot fly.\n")
    assert err.splitlines()[0] == (
        "✗ fly(to=\"Mars\"): unknown tool 'fly'; available tools: get_weather"
    )
    code, out, err = chat(capsys, "-m", "scripted:bad-arguments", "-t", WEATHER_PY, "weather?")
    assert (code, out) == (0, "Which city?\n")
    lines = without_timings(err).splitlines()
    assert lines[0] == '→ get_weather(town="Paris")'
    assert lines[1].startswith(
        "✗ get_weather(town=\"Paris\") N s: invalid arguments for tool 'get_weather'"
    )


def test_tools_by_module_attribute(scripted, capsys, clean_environment):
    clean_environment.joinpath("mytools.py").write_text(
        "from ostinato import tool\n\n"
        "class Tools:\n"
        "    @tool(description='Weather of a city')\n"
        "    def get_weather(self, city: str) -> str:\n"
        "        return f'{city}: fine'\n",
        encoding="utf-8",
    )
    code, out, err = chat(capsys, "-m", "scripted:weather", "-t", "mytools:Tools", QUESTION)
    assert (code, out) == (0, WEATHER_ANSWER + "\n")
    assert '← get_weather(city="Tokyo")' in err
    assert "Tokyo: fine" in err


@pytest.mark.parametrize(
    ("source", "problem", "fix"),
    [
        ("missing.py", "no such file: missing.py", "write --tools module:attribute"),
        (
            "no_such_module_anywhere:x",
            "no module named 'no_such_module_anywhere'",
            "write --tools module:attribute",
        ),
        ("json", "json has no module-level @tool functions", "write --tools module:attribute"),
        (
            f"{WEATHER_PY}:nothing",
            "has no attribute 'nothing' (tools: get_weather; other callables: main)",
            f"name one of its tools, e.g. --tools {WEATHER_PY}:get_weather",
        ),
    ],
)
def test_bad_tool_sources_exit_2(scripted, capsys, source, problem, fix):
    code, out, err = chat(capsys, "-m", "scripted:hello", "--tools", source, "hi")
    assert (code, out) == (2, "")
    first = err.splitlines()[0]
    assert first.startswith(f"ostinato: error: --tools {source!r}: ")
    assert problem in first
    assert f"; fix: {fix}" in first


def test_the_local_default_is_set_up_first_and_says_so(fake_distributions, capsys):
    module = local_plugin.install(fake_distributions)
    code, out, err = chat(capsys, "--yes", "hi")
    assert code == 0
    assert out == "Hi from the local model.\n"
    assert "setting up...\n" in err
    assert err.startswith(
        "ostinato: no model is configured, so llamacpp:default runs a small local model, "
        "which is not set up yet: running `ostinato local setup`"
    )
    import sys

    assert sys.modules[module].calls == [["status"], ["setup"]]
    code, out, _ = chat(capsys, "hi")  # ready now: no second setup
    assert out == "Hi from the local model.\n"
    assert sys.modules[module].calls == [["status"], ["setup"], ["status"]]


def test_a_failed_local_setup_exits_1(fake_distributions, capsys):
    local_plugin.install(fake_distributions, setup_exit=130)
    code, _, err = chat(capsys, "--yes", "hi")
    assert code == 1
    assert err.splitlines()[-1] == (
        "ostinato: error: `ostinato local setup` did not finish (exit code 130); fix: read "
        "its output above, then run `ostinato local setup` again (it resumes), or choose "
        "another model with --model"
    )
