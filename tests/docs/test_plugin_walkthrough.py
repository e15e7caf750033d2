"""The plugin walkthrough of docs/plugins.md, done as written.

The blocks of "A chat model plugin, step by step" whose first line names a file are
written to those files in an empty directory; the distribution is installed, editable,
into a fresh environment beside ostinato's core (as step 6 says); then the plugin's own
test (step 5) runs there with pytest, ``ostinato plugins`` lists it as the page shows,
``ostinato chat`` answers through it, and core's settings apply to it (the model chosen
by ``OSTINATO_MODEL``, the plugin left out by ``OSTINATO_DISABLE_PLUGINS``, its settings
read from a ``.env`` file and shown by ``ostinato config``, settings given to the container
winning over the environment through the factory context, a bad value reported by
variable).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.fakes.environments import ROOT, fresh_environment, install, run

PAGE = ROOT / "docs" / "plugins.md"
SECTION = "## A chat model plugin, step by step"
BLOCK = re.compile(r"^```(?P<lang>[^\n]*)\n(?P<body>.*?)^```\s*$", re.DOTALL | re.MULTILINE)
FILE_COMMENT = re.compile(r"#\s*(?P<path>[\w./-]+\.(?:py|toml))\s*$")


def _section(text: str) -> str:
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start : end if end != -1 else None]


def walkthrough_files(text: str) -> dict[str, str]:
    """The files the walkthrough names: path -> contents (its first-line comment kept)."""
    files = {}
    for block in BLOCK.finditer(_section(text)):
        body = block.group("body")
        named = FILE_COMMENT.fullmatch(body.splitlines()[0]) if body.strip() else None
        if named:
            files[named.group("path")] = body
    return files


def console_lines(text: str) -> list[str]:
    """The lines of the walkthrough's console blocks."""
    return [
        line
        for block in BLOCK.finditer(_section(text))
        if block.group("lang").strip() == "console"
        for line in block.group("body").splitlines()
    ]


@pytest.fixture(scope="module")
def page() -> str:
    return PAGE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def plugin_directory(page: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``ostinato-echo`` as the walkthrough lays it out."""
    directory = tmp_path_factory.mktemp("walkthrough") / "ostinato-echo"
    for path, contents in walkthrough_files(page).items():
        target = directory / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(contents, encoding="utf-8")
    (directory / "ostinato_echo" / "__init__.py").touch()  # "empty", says the tree
    return directory


@pytest.fixture(scope="module")
def python(plugin_directory: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment: ostinato's core from this repository, pytest, and the plugin,
    editable."""
    interpreter = fresh_environment(tmp_path_factory.mktemp("echo-env") / "venv")
    install(interpreter, ROOT / "core", "pytest", "-e", plugin_directory)
    return interpreter


@pytest.fixture
def clean_env(tmp_path: Path) -> dict[str, str]:
    """No OSTINATO_* variables; a home of its own."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}


def _ostinato(
    python: Path, env: dict[str, str], cwd: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    return run([str(python.parent / "ostinato"), *args], env=env, cwd=cwd)


def test_the_walkthrough_names_every_file_of_its_tree(page: str) -> None:
    assert set(walkthrough_files(page)) == {
        "pyproject.toml",
        "ostinato_echo/_model.py",
        "ostinato_echo/settings.py",
        "ostinato_echo/plugin.py",
        "tests/test_plugin.py",
    }


def test_the_plugins_own_test_passes(
    python: Path, plugin_directory: Path, clean_env: dict[str, str]
) -> None:
    done = run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        env=clean_env,
        cwd=plugin_directory,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_ostinato_plugins_lists_it_as_the_page_shows(
    python: Path, page: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    done = _ostinato(python, clean_env, tmp_path, "plugins", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["failed"] == []
    (echo,) = [p for p in report["plugins"] if p["name"] == "echo"]
    assert (echo["distribution"], echo["version"], echo["value"]) == (
        "ostinato-echo",
        "0.1.0",
        "ostinato_echo.plugin",
    )
    assert echo["registered"] == {"chat_models": ["echo"], "settings": ["OSTINATO_ECHO_"]}

    table = _ostinato(python, clean_env, tmp_path, "plugins")
    assert table.returncode == 0, table.stderr
    (shown,) = [line.split() for line in console_lines(page) if line.startswith("echo ")]
    (listed,) = [line.split() for line in table.stdout.splitlines() if line.startswith("echo ")]
    assert listed == shown


def test_ostinato_chat_answers_through_it(
    python: Path, page: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**clean_env, "OSTINATO_MODEL": "echo:parrot", "OSTINATO_ECHO_SHOUT": "true"}
    done = _ostinato(python, env, tmp_path, "chat", "hello")
    assert done.returncode == 0, done.stderr
    assert "[PARROT] HELLO" in console_lines(page)
    assert "[PARROT] HELLO" in done.stdout.splitlines()


def test_core_settings_apply_to_it(python: Path, clean_env: dict[str, str], tmp_path: Path) -> None:
    answer = "import ostinato; print(ostinato.chat_client().prompt('hello').call().content())"
    (tmp_path / ".env").write_text("OSTINATO_MODEL=echo:\nOSTINATO_ECHO_SHOUT=true\n")
    done = run([str(python), "-c", answer], env=clean_env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[DEFAULT] HELLO"

    config = _ostinato(python, clean_env, tmp_path, "config", "--json")
    assert config.returncode == 0, config.stderr
    assert "OSTINATO_ECHO_SHOUT" in config.stdout

    disabled = {**clean_env, "OSTINATO_DISABLE_PLUGINS": "echo"}
    listed = _ostinato(python, disabled, tmp_path, "plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "echo" not in {p["name"] for p in json.loads(listed.stdout)["plugins"]}

    # The factory takes its settings from its context: what the container was given wins
    # over the environment, and the factory's signature is the current one (no warning).
    given = (
        "import warnings\n"
        "warnings.simplefilter('always')\n"
        "from ostinato.config import build_container\n"
        "from ostinato.settings import Settings\n"
        "from ostinato_echo.settings import EchoSettings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    container = build_container(\n"
        "        settings=Settings(model='echo:parrot'),\n"
        "        plugin_settings={'OSTINATO_ECHO_': EchoSettings(shout=True)},\n"
        "    )\n"
        "    print(container.chat_client().prompt('hello').call().content())\n"
        "print([str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)])\n"
    )
    other = {**clean_env, "OSTINATO_MODEL": "echo:other", "OSTINATO_ECHO_SHOUT": "false"}
    elsewhere = tmp_path / "elsewhere"  # no .env there
    elsewhere.mkdir()
    done = run([str(python), "-c", given], env=other, cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[PARROT] HELLO", "[]"]

    bad = {**clean_env, "OSTINATO_ECHO_SHOUT": "loudly"}
    failed = run([str(python), "-c", answer], env=bad, cwd=tmp_path)
    assert failed.returncode != 0
    assert "OSTINATO_ECHO_SHOUT" in failed.stderr and "loudly" in failed.stderr
