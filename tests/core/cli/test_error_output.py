"""How errors show: one line by default, a JSON object with ``--json``, the traceback
with ``--debug``."""

from __future__ import annotations

import json

from tests.core.cli.cli_process import run_ostinato

BROKEN_TOOLS = """
def helper():
    raise RuntimeError("the tools file is broken here")

helper()
"""

BROKEN_PLUGIN = """
    from ostinato.plugins import hookimpl

    def explode(context, name):
        raise ValueError("the plugin factory failed here")

    @hookimpl
    def register_chat_models(register):
        register("boom", explode)
"""


def test_a_failing_tools_file_is_one_line_without_debug(scripted, tmp_path):
    (tmp_path / "tools.py").write_text(BROKEN_TOOLS, encoding="utf-8")
    done = run_ostinato(scripted, tmp_path, "chat", "-m", "scripted:hello", "-t", "tools.py", "hi")
    assert (done.returncode, done.stdout) == (2, "")
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("ostinato: error: --tools 'tools.py': importing ")
    assert "RuntimeError: the tools file is broken here" in done.stderr


def test_debug_shows_where_the_tools_file_raised(scripted, tmp_path):
    (tmp_path / "tools.py").write_text(BROKEN_TOOLS, encoding="utf-8")
    for argv in (
        ["--debug", "chat", "-m", "scripted:hello", "-t", "tools.py", "hi"],
        ["chat", "-m", "scripted:hello", "-t", "tools.py", "hi", "--debug"],
    ):
        done = run_ostinato(scripted, tmp_path, *argv)
        assert done.returncode == 2
        assert "Traceback (most recent call last)" in done.stderr
        assert 'tools.py", line 3, in helper' in done.stderr
        assert done.stderr.rstrip().splitlines()[-1].startswith("ostinato: error: --tools")


def test_debug_shows_where_a_plugin_raised(scripted, tmp_path):
    scripted.plugin("boom", BROKEN_PLUGIN)
    env = {"OSTINATO_LOAD_PLUGINS": "scripted,boom"}
    quiet = run_ostinato(scripted, tmp_path, "chat", "-m", "boom:x", "hi", env=env)
    assert (quiet.returncode, quiet.stdout) == (1, "")
    assert quiet.stderr == (
        "ostinato: error: ValueError: the plugin factory failed here; fix: run again with "
        "--debug to see where\n"
    )
    loud = run_ostinato(scripted, tmp_path, "--debug", "chat", "-m", "boom:x", "hi", env=env)
    assert loud.returncode == 1
    assert "in explode" in loud.stderr
    assert "ValueError: the plugin factory failed here" in loud.stderr


def test_json_errors_are_a_json_object_on_stdout(scripted, tmp_path):
    done = run_ostinato(scripted, tmp_path, "chat", "--json", "-m", "nope:x", "hi")
    assert done.returncode == 2
    assert done.stderr.startswith("ostinato: error: unknown model provider 'nope'")
    error = json.loads(done.stdout)["error"]
    assert error["message"].startswith("unknown model provider 'nope' in --model 'nope:x'")
    assert error["fix"].endswith("pip install ostinato-nope")
    assert (error["type"], error["exit_code"], error["details"]) == ("ConfigurationError", 2, [])


def test_json_model_errors_and_usage_errors_too(scripted, tmp_path):
    done = run_ostinato(scripted, tmp_path, "chat", "--json", "-m", "scripted:auth", "hi")
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert (error["type"], error["exit_code"]) == ("AuthenticationError", 1)
    assert error["message"].startswith("scripted refused the credentials (HTTP 401)")
    usage = run_ostinato(scripted, tmp_path, "models", "--json", "--nope")
    assert usage.returncode == 2
    assert "unrecognized arguments: --nope" in usage.stderr
    assert json.loads(usage.stdout)["error"]["exit_code"] == 2


def test_config_json_carries_its_error_in_its_own_object(scripted, tmp_path):
    env = {"OSTINATO_TOOLS__MAX_ITERATIONS": "many"}
    done = run_ostinato(scripted, tmp_path, "config", "--json", env=env)
    assert done.returncode != 0
    report = json.loads(done.stdout)  # one JSON document
    assert "OSTINATO_TOOLS__MAX_ITERATIONS" in json.dumps(report["error"])
