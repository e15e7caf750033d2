"""A turn that ends without an answer says why, and exits with a code of its own."""

from __future__ import annotations

from ostinato.cli._turn_outcome import EXIT_STOPPED_AT_LIMIT, EXIT_TOOL_CALLS_NOT_RUN
from tests.core.cli.cli_process import ROOT, run_ostinato

WEATHER_PY = str(ROOT / "examples" / "weather.py")


def _chat_asking_for_tools_forever(scripted, tmp_path, env: dict[str, str]):
    """``ostinato chat`` on a model that asks for the weather tool every round."""
    argv = ["chat", "-m", "scripted:tools-forever", "--tools", WEATHER_PY, "hi"]
    return run_ostinato(scripted, tmp_path, *argv, env=env)


def test_the_iteration_cap_is_shown_with_the_calls_that_did_not_run(scripted, tmp_path):
    done = _chat_asking_for_tools_forever(
        scripted, tmp_path, {"OSTINATO_TOOLS__MAX_ITERATIONS": "2"}
    )
    assert done.returncode == EXIT_STOPPED_AT_LIMIT == 3
    lines = done.stderr.splitlines()
    assert lines[-2].startswith(
        "ostinato: error: stopped at the iteration cap after 2 model rounds, before an "
        "answer; fix: raise OSTINATO_TOOLS__MAX_ITERATIONS"
    )
    assert lines[-1].startswith('  did not run: get_weather(city="City ')


def test_a_usage_limit_is_named_with_its_variable(scripted, tmp_path):
    done = _chat_asking_for_tools_forever(
        scripted, tmp_path, {"OSTINATO_TOOLS__MAX_MODEL_REQUESTS": "2"}
    )
    assert done.returncode == EXIT_STOPPED_AT_LIMIT
    assert (
        "ostinato: error: stopped at the model-request limit of the turn after 2 model "
        "rounds, before an answer; fix: raise OSTINATO_TOOLS__MAX_MODEL_REQUESTS"
    ) in done.stderr


def test_tool_calls_returned_unrun_are_shown_when_the_loop_is_off(scripted, tmp_path):
    done = run_ostinato(
        scripted,
        tmp_path,
        "chat",
        "-m",
        "scripted:weather",
        "--tools",
        WEATHER_PY,
        "Weather?",
        env={"OSTINATO_CHAT_CLIENT__TOOL_CALLING__ENABLED": "false"},
    )
    assert (done.returncode, done.stdout) == (EXIT_TOOL_CALLS_NOT_RUN, "")
    assert done.stderr.splitlines()[-3:] == [
        "ostinato: error: the model asked for 2 tool calls that did not run (no tool loop "
        "ran them); fix: offer the tools with --tools and leave the tool loop on "
        "(OSTINATO_CHAT_CLIENT__TOOL_CALLING__ENABLED=true)",
        '  did not run: get_weather(city="Paris")',
        '  did not run: get_weather(city="Tokyo")',
    ]


def test_an_answer_exits_0_and_says_nothing_more(scripted, tmp_path):
    done = run_ostinato(scripted, tmp_path, "chat", "-m", "scripted:weather", "-t", WEATHER_PY, "x")
    assert done.returncode == 0
    assert "ostinato: error" not in done.stderr
