"""Fake installed distributions: real ``*.dist-info`` folders in a temporary directory.

The directory is put on ``sys.path``, so ``importlib.metadata.entry_points()`` finds the
fakes exactly as it finds installed plugins; by default the real installed distributions
are hidden from the entry-point group ``ostinato`` so a test sees only its own plugins.

    def test_x(fake_distributions):
        fake_distributions.plugin("acme", '''
            from ostinato.plugins import hookimpl

            @hookimpl
            def register_chat_models(register):
                register("acme", lambda context, model_name: ...)
        ''')
"""

from __future__ import annotations

import importlib
import importlib.metadata
import itertools
import os
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

__all__ = ["FakeDistributions", "clean_environment", "data_home", "fake_distributions"]

_counter = itertools.count()


class FakeDistributions:
    """Writes distributions (metadata, entry points, modules) under ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules: list[str] = []

    def add(
        self,
        distribution: str,
        *,
        version: str = "1.0",
        entry_points: Mapping[str, str] | None = None,
        modules: Mapping[str, str] | None = None,
        group: str = "ostinato",
    ) -> None:
        """One distribution declaring ``entry_points`` (name -> value) and holding ``modules``.

        ``modules`` maps a dotted module name to its source (dedented); packages are made
        for the dots.
        """
        folder = distribution.replace("-", "_")
        info = self.root / f"{folder}-{version}.dist-info"
        info.mkdir(parents=True)
        info.joinpath("METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n",
            encoding="utf-8",
        )
        lines = [f"[{group}]"] + [f"{n} = {v}" for n, v in (entry_points or {}).items()]
        info.joinpath("entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        for name, source in (modules or {}).items():
            parts = name.split(".")
            for depth in range(1, len(parts)):
                package = self.root.joinpath(*parts[:depth])
                package.mkdir(exist_ok=True)
                package.joinpath("__init__.py").touch()
            path = self.root.joinpath(*parts[:-1], f"{parts[-1]}.py")
            path.write_text(textwrap.dedent(source), encoding="utf-8")
            self.modules.append(name)
        importlib.invalidate_caches()

    def plugin(
        self,
        name: str,
        source: str,
        *,
        distribution: str | None = None,
        version: str = "1.0",
    ) -> str:
        """A distribution ``ostinato-<name>`` with one plugin module; returns the module name."""
        module = f"fake_{name.replace('-', '_')}_plugin_{next(_counter)}"
        self.add(
            distribution or f"ostinato-{name}",
            version=version,
            entry_points={name: module},
            modules={module: source},
        )
        return module

    def cleanup(self) -> None:
        """Forget the modules imported from the fakes."""
        for name in self.modules:
            for loaded in [m for m in sys.modules if m == name or m.startswith(f"{name}.")]:
                del sys.modules[loaded]
            top = name.split(".")[0]
            sys.modules.pop(top, None)
        importlib.invalidate_caches()


def _only_under(root: Path, original: object) -> object:
    def entry_points(**params: object) -> importlib.metadata.EntryPoints:
        found = original(**params)  # type: ignore[operator]
        kept = []
        for ep in found:
            dist = ep.dist
            location = Path(str(dist.locate_file(""))) if dist is not None else None
            if location is not None and location.resolve() == root.resolve():
                kept.append(ep)
        return importlib.metadata.EntryPoints(kept)

    return entry_points


@pytest.fixture
def fake_distributions(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[FakeDistributions]:
    """Fake distributions on ``sys.path``; the installed plugins are hidden."""
    root = tmp_path_factory.mktemp("site-packages")
    fakes = FakeDistributions(root)
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setattr(
        importlib.metadata,
        "entry_points",
        _only_under(root, importlib.metadata.entry_points),
    )
    yield fakes
    fakes.cleanup()


@pytest.fixture
def clean_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No ``OSTINATO_*`` (nor provider) variables, and a working directory without ``.env``."""
    for name in list(os.environ):
        if name.upper().startswith(("OSTINATO_", "OPENAI_", "ANTHROPIC_", "OLLAMA_")):
            monkeypatch.delenv(name)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


@pytest.fixture(autouse=True)
def data_home(clean_environment: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No ``OSTINATO_*`` variables, and ``XDG_DATA_HOME`` under the test's temporary directory.

    Used wherever a conftest (or test module) imports it, for every test there: nothing can
    touch the real ``~/.local/share/ostinato``.
    """
    home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home
