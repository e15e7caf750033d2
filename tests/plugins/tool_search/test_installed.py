"""The plugin installed for real: core, the openai plugin and this plugin built and installed
(with uv) into a fresh virtual environment that holds nothing else of the workspace.

Installing the distribution is what makes it the tool advisor of every auto-configured
client: ``ostinato plugins`` and ``ostinato.chat_client()`` say so, run by that
environment's own interpreter. A second real distribution registering another
replacement makes the choice an error naming both and the setting to choose.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.environments import ROOT, UV, fresh_environment, install, run, uninstall

ADVISOR_VARIABLE = "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR"

pytestmark = pytest.mark.skipif(
    UV is None, reason="uv builds the fresh environment (`make test` installs it)"
)


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of a fresh environment holding ostinato, ostinato-openai and
    ostinato-tool-search (and their dependencies), nothing else."""
    interpreter = fresh_environment(tmp_path_factory.mktemp("installed") / "venv")
    install(
        interpreter, ROOT / "core", ROOT / "plugins" / "openai", ROOT / "plugins" / "tool-search"
    )
    return interpreter


@pytest.fixture
def clean_env(tmp_path: Path) -> dict[str, str]:
    """No OSTINATO_* variables, no .env, a key for the openai provider."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "OSTINATO_MODEL": "openai:gpt-4.1-mini",
        "OSTINATO_OPENAI_API_KEY": "sk-installed-test",
    }


def _ostinato(
    python: Path, env: dict[str, str], cwd: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    return run([str(python.parent / "ostinato"), *args], env=env, cwd=cwd)


def test_only_the_three_distributions_are_installed(python: Path):
    code = (
        "import importlib.metadata as m, json; "
        "print(json.dumps(sorted(d.metadata['Name'] for d in m.distributions())))"
    )
    done = run([str(python), "-c", code])
    assert done.returncode == 0, done.stderr
    ours = {name for name in json.loads(done.stdout) if name.startswith("ostinato")}
    assert ours == {"ostinato", "ostinato-openai", "ostinato-tool-search"}


def test_ostinato_plugins_shows_it_as_the_tool_advisor(python: Path, clean_env, tmp_path):
    done = _ostinato(python, clean_env, tmp_path, "plugins", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["tool_advisor"]["name"] == "tool-search"
    assert {p["name"] for p in report["plugins"]} == {"core", "openai", "tool-search"}
    (plugin,) = [p for p in report["plugins"] if p["name"] == "tool-search"]
    assert plugin["distribution"] == "ostinato-tool-search"
    assert report["failed"] == []


def test_an_auto_configured_client_uses_it(python: Path, clean_env, tmp_path):
    code = (
        "import ostinato; c = ostinato.chat_client(); "
        "print(type(c.model).__name__, type(c.tool_advisor).__name__)"
    )
    done = run([str(python), "-c", code], env=clean_env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["OpenAIChatModel", "ToolSearchToolCallingAdvisor"]


@pytest.fixture
def second_replacement(python: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A real distribution ``acme-loop`` registering the replacement ``acme-loop``,
    installed beside the others, uninstalled after the test."""
    source = tmp_path_factory.mktemp("acme-loop")
    (source / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [project]
            name = "acme-loop"
            version = "1.0"
            dependencies = ["ostinato"]

            [project.entry-points.ostinato]
            acme-loop = "acme_loop"

            [build-system]
            requires = ["hatchling>=1.25"]
            build-backend = "hatchling.build"
            """
        )
    )
    package = source / "acme_loop"
    package.mkdir()
    (package / "__init__.py").write_text(
        textwrap.dedent(
            '''
            """A second replacement tool advisor."""
            from ostinato import ToolCallingAdvisor
            from ostinato.plugins import hookimpl


            class AcmeLoop(ToolCallingAdvisor):
                """The acme tool loop."""


            @hookimpl
            def register_tool_advisors(register):
                register("acme-loop", lambda manager: AcmeLoop(tool_calling_manager=manager))
            '''
        )
    )
    install(python, source)
    yield
    uninstall(python, "acme-loop")


def test_a_second_replacement_makes_the_setting_choose(
    python: Path, clean_env, tmp_path, second_replacement
):
    done = _ostinato(python, clean_env, tmp_path, "plugins")
    assert done.returncode == 0, done.stderr
    assert "tool advisor: none chosen: 2 replacement tool advisors are installed" in done.stdout
    assert "acme-loop (distribution acme-loop 1.0)" in done.stdout
    assert "tool-search (distribution ostinato-tool-search" in done.stdout

    code = "import ostinato; ostinato.chat_client()"
    failed = run([str(python), "-c", code], env=clean_env, cwd=tmp_path)
    assert failed.returncode != 0
    assert "acme-loop" in failed.stderr and "tool-search" in failed.stderr
    assert ADVISOR_VARIABLE in failed.stderr

    chosen = {**clean_env, ADVISOR_VARIABLE: "acme-loop"}
    code = "import ostinato; print(type(ostinato.chat_client().tool_advisor).__name__)"
    done = run([str(python), "-c", code], env=chosen, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "AcmeLoop"
