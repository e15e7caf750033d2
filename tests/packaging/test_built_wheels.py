"""ostinato installs from its wheels, without the workspace: ``make wheels-check``.

Every distribution is built (an sdist, and the wheel built from that sdist, as a package
index would get them) into a temporary folder; the built metadata is checked; then every
wheel is installed into a fresh virtual environment — not the workspace's ``.venv`` —
where the scripted demo, the README's "Twenty lines" script, ``ostinato --help`` and
``ostinato plugins`` run from a folder outside the repository.

The build backend and the dependencies come from uv's cache (or PyPI, where the cache
lacks them); third-party versions are held to ``uv.lock``. It builds, so it runs only
when ``WHEELS_CHECK=1``, as ``make wheels-check`` (and CI) sets it.
"""

from __future__ import annotations

import email.parser
import json
import os
import shutil
import sys
import tarfile
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from email.message import Message
from pathlib import Path

import pytest

from tests.commands import run_command
from tests.packaging.workspace import (
    LICENSE,
    ROOT,
    Distribution,
    distributions,
    readme_example,
    the_version,
)

pytestmark = pytest.mark.skipif(
    os.environ.get("WHEELS_CHECK") != "1",
    reason="builds every wheel and installs them; `make wheels-check` runs it",
)

DISTRIBUTIONS = distributions()
each = pytest.mark.parametrize("dist", DISTRIBUTIONS, ids=str)


def _uv() -> list[str]:
    """uv: the one running ``uv run`` (it sets ``UV``), else the one on PATH."""
    found = os.environ.get("UV") or shutil.which("uv")
    return [found] if found else [sys.executable, "-m", "uv"]


def _run(argv: Sequence[str | Path], *, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run ``argv``; it must exit 0. Returns its standard output."""
    return run_command(argv, cwd=cwd, env=env).stdout


@dataclass(frozen=True)
class CleanEnvironment:
    """A fresh virtual environment with every built wheel installed, and the environment
    variables of a shell outside the workspace."""

    venv: Path
    home: Path  # a folder outside the repository, to run from
    env: dict[str, str]

    def run(self, *argv: str | Path) -> str:
        """Run a command of the environment (``python``, ``ostinato``) from :attr:`home`."""
        return _run([self.venv / "bin" / str(argv[0]), *argv[1:]], cwd=self.home, env=self.env)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every distribution's sdist and wheel, built by ``uv build --all-packages``."""
    out = tmp_path_factory.mktemp("dist")
    _run([*_uv(), "build", "--all-packages", "--out-dir", out], cwd=ROOT)
    yield out
    shutil.rmtree(out)


def _shell_environment(venv: Path, home: Path) -> dict[str, str]:
    """The process environment with ``venv`` activated instead of the workspace's."""
    workspace_bin = os.environ.get("VIRTUAL_ENV", str(ROOT / ".venv")) + "/bin"
    dropped = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "UV_PROJECT_ENVIRONMENT")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in dropped and not k.startswith(("OSTINATO_", "OTEL_"))
    }
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != workspace_bin]
    env["PATH"] = os.pathsep.join([str(venv / "bin"), *path])
    env["VIRTUAL_ENV"] = str(venv)
    # Conversations and durable state of this check stay in its own folder.
    env["XDG_DATA_HOME"] = str(home / "data")
    env["XDG_STATE_HOME"] = str(home / "state")
    return env


@pytest.fixture(scope="module")
def clean(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[CleanEnvironment]:
    """A fresh virtual environment with every built wheel installed."""
    root = tmp_path_factory.mktemp("clean")
    venv, home = root / "venv", root / "home"
    home.mkdir()
    uv = _uv()
    _run([*uv, "venv", "--quiet", "--python", sys.executable, venv], cwd=root)
    # The third-party versions the workspace is tested with, from uv.lock.
    constraints = root / "constraints.txt"
    export = ["--locked", "--all-packages", "--no-dev", "--no-emit-workspace", "--no-hashes"]
    export += ["--no-header", "--no-annotate", "--quiet", "--output-file", str(constraints)]
    _run([*uv, "export", *export], cwd=ROOT)
    wheels = sorted(built.glob("*.whl"))
    assert len(wheels) == len(DISTRIBUTIONS), [w.name for w in wheels]
    python = venv / "bin" / "python"
    _run(
        [*uv, "pip", "install", "--quiet", "--python", python, "-c", constraints, *wheels], cwd=root
    )
    yield CleanEnvironment(venv, home, _shell_environment(venv, home))
    shutil.rmtree(root)  # about 100 MB: not left for pytest's own clean-up


# -- the built metadata


def _file_name(dist: Distribution) -> str:
    return dist.name.replace("-", "_")


def _wheel(built: Path, dist: Distribution) -> zipfile.ZipFile:
    return zipfile.ZipFile(built / f"{_file_name(dist)}-{the_version()}-py3-none-any.whl")


@pytest.fixture
def wheel_metadata(built: Path, dist: Distribution) -> Iterator[tuple[Message, list[str]]]:
    """The wheel's ``METADATA`` and its file names."""
    with _wheel(built, dist) as wheel:
        info = f"{_file_name(dist)}-{the_version()}.dist-info"
        text = wheel.read(f"{info}/METADATA").decode()
        yield email.parser.Parser().parsestr(text), wheel.namelist()


def _check_core_metadata(metadata: Message, dist: Distribution) -> None:
    project = dist.project
    assert metadata["Name"] == dist.name
    assert metadata["Version"] == the_version()
    assert metadata["Summary"] == project["description"]
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata.get_all("Classifier") == project["classifiers"]
    urls = [f"{label}, {url}" for label, url in project["urls"].items()]
    assert metadata.get_all("Project-URL") == urls
    assert metadata["Description-Content-Type"] == "text/markdown"
    readme = (dist.folder / "README.md").read_text(encoding="utf-8")
    assert metadata.get_payload().strip() == readme.strip()
    requires = metadata.get_all("Requires-Dist") or []
    for requirement in project["dependencies"]:
        assert requirement in requires, f"{requirement} not in {requires}"


@each
def test_the_wheels_metadata_is_complete(wheel_metadata, dist: Distribution):
    metadata, names = wheel_metadata
    _check_core_metadata(metadata, dist)
    info = f"{_file_name(dist)}-{the_version()}.dist-info"
    assert f"{info}/licenses/LICENSE" in names
    assert f"{dist.package}/py.typed" in names
    assert not [n for n in names if n.startswith(("tests/", "src/"))], names


@each
def test_the_wheels_license_is_the_repositorys(built: Path, dist: Distribution):
    with _wheel(built, dist) as wheel:
        info = f"{_file_name(dist)}-{the_version()}.dist-info"
        assert wheel.read(f"{info}/licenses/LICENSE") == LICENSE.read_bytes()


@each
def test_the_sdist_holds_its_sources_readme_license_and_metadata(built: Path, dist: Distribution):
    top = f"{_file_name(dist)}-{the_version()}"
    with tarfile.open(built / f"{top}.tar.gz") as sdist:
        names = sdist.getnames()
        for name in ("PKG-INFO", "pyproject.toml", "README.md", "LICENSE"):
            assert f"{top}/{name}" in names, (name, names)
        assert f"{top}/src/{dist.package}/__init__.py" in names
        member = sdist.extractfile(f"{top}/PKG-INFO")
        assert member is not None
        metadata = email.parser.Parser().parsestr(member.read().decode())
    _check_core_metadata(metadata, dist)


# -- the wheels, installed in a clean environment


def test_the_packages_import_from_the_environment_not_the_workspace(clean: CleanEnvironment):
    packages = [d.package for d in DISTRIBUTIONS]
    script = (
        "import importlib, json\n"
        f"modules = [importlib.import_module(p) for p in {packages!r}]\n"
        "print(json.dumps({m.__name__: [m.__file__, m.__version__] for m in modules}))\n"
    )
    found = json.loads(clean.run("python", "-c", script))
    site = str(clean.venv.resolve())
    for package, (file, version) in found.items():
        assert str(Path(file).resolve()).startswith(site), (package, file)
        assert version == the_version(), package


def test_the_scripted_demo_runs(clean: CleanEnvironment):
    demo = clean.home / "demo.py"
    shutil.copy(ROOT / "examples" / "demo.py", demo)
    out = clean.run("python", demo)
    answer = "assistant: Lisbon is the warmest today: 22 °C (71.6 °F) and sunny."
    called, streamed = out.split("stream():", 1)
    assert answer in called and "3 model rounds, three forecasts run concurrently" in called
    assert answer in streamed, out
    assert streamed.count("→ forecast(") == 3 and "← to_fahrenheit: 71.6" in streamed, out


def test_the_readmes_twenty_lines_print_what_the_readme_shows(clean: CleanEnvironment):
    script, shown = readme_example()
    path = clean.home / "twenty_lines.py"
    path.write_text(script, encoding="utf-8")
    assert clean.run("python", path).strip() == shown.strip()


def test_the_command_and_the_plugins_commands_load(clean: CleanEnvironment):
    helped = clean.run("ostinato", "--help")
    for command in ("chat", "plugins", "logs", "local", "mcp", "serve", "worker"):
        assert f"    {command} " in helped or f"    {command}\n" in helped, (command, helped)
    assert clean.run("ostinato", "--version").strip() == f"ostinato {the_version()}"


def test_every_plugin_loads_from_its_entry_point(clean: CleanEnvironment):
    shown = json.loads(clean.run("ostinato", "plugins", "--json"))
    assert shown["failed"] == [], shown["failed"]
    loaded = {p["distribution"]: p for p in shown["plugins"]}
    assert set(loaded) == {d.name for d in DISTRIBUTIONS}, sorted(loaded)
    for dist, plugin in loaded.items():
        assert plugin["version"] == the_version(), dist
        if dist != "ostinato":
            assert plugin["origin"] == "entry-point", plugin
            assert plugin["registered"], f"{dist} registered nothing"
