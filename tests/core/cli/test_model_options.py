"""``ostinato chat -o key=value`` and ``--system``, as a user types them."""

from __future__ import annotations

from tests.core.cli.cli_process import run_ostinato


def test_options_and_the_system_message_reach_the_model(scripted, tmp_path):
    done = run_ostinato(
        scripted,
        tmp_path,
        "chat",
        "-m",
        "scripted:options",
        "-o",
        "temperature=0.2",
        "-o",
        "max-tokens=50",
        "-o",
        "stop_sequences=END,STOP",
        "--system",
        "Be brief.",
        "hi",
    )
    assert (done.returncode, done.stderr.startswith("usage: ")) == (0, True)
    assert done.stdout == (
        "temperature=0.2 max_tokens=50 stop=('END', 'STOP') system='Be brief.'\n"
    )


def test_without_options_the_model_defaults_stay(scripted, tmp_path):
    done = run_ostinato(scripted, tmp_path, "chat", "-m", "scripted:options", "hi")
    assert done.stdout == "temperature=None max_tokens=None stop=None system=None\n"


def test_an_unknown_option_names_the_known_ones(scripted, tmp_path):
    done = run_ostinato(
        scripted, tmp_path, "chat", "-m", "scripted:options", "-o", "temprature=0.2", "hi"
    )
    assert (done.returncode, done.stdout) == (2, "")
    lines = done.stderr.splitlines()
    assert lines[0] == (
        "ostinato: error: -o 'temprature=0.2': scripted models have no option 'temprature' "
        "(did you mean temperature?); fix: use one of those keys"
    )
    assert lines[1].startswith("  the options of ToolCallingChatOptions: frequency_penalty, ")
    assert "max_tokens" in lines[1]
    assert "tool_callbacks" not in lines[1]


def test_a_value_of_the_wrong_type_or_shape_is_an_error(scripted, tmp_path):
    done = run_ostinato(
        scripted, tmp_path, "chat", "-m", "scripted:options", "-o", "max_tokens=lots", "hi"
    )
    assert done.returncode == 2
    assert done.stderr.startswith(
        "ostinato: error: -o 'max_tokens=lots': max_tokens takes int, got 'lots'; fix:"
    )
    done = run_ostinato(scripted, tmp_path, "chat", "-m", "scripted:options", "-o", "hot", "hi")
    assert done.stderr.startswith("ostinato: error: -o 'hot' is not an option=value pair; fix:")
