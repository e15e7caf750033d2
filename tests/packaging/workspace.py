"""The distributions of the workspace and what their metadata must say, read from their
``pyproject.toml`` files (no build, no network).

Every distribution — ``core/`` and each ``plugins/*/`` — is published on its own: it
declares its readme, its license (with the license text shipped in the sdist and the
wheel), classifiers and project URLs, and takes its version from the one place it is
written, ``__version__`` in ``core/src/ostinato/__init__.py``.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

__all__ = [
    "LICENSE",
    "REQUIRED_CLASSIFIERS",
    "REQUIRED_URLS",
    "ROOT",
    "VERSION_FILE",
    "Distribution",
    "distributions",
    "readme_example",
    "the_version",
]

ROOT = Path(__file__).resolve().parents[2]
#: The license text of the repository; every distribution ships a copy of it.
LICENSE = ROOT / "LICENSE"
#: The one file the version of every distribution is written in.
VERSION_FILE = ROOT / "core" / "src" / "ostinato" / "__init__.py"

#: Classifiers every distribution declares (the Python versions follow requires-python).
REQUIRED_CLASSIFIERS = frozenset(
    {
        "Development Status :: 3 - Alpha",
        "Intended Audience :: Developers",
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3 :: Only",
        "Programming Language :: Python :: 3.11",
        "Typing :: Typed",
    }
)
#: The ``[project.urls]`` labels every distribution declares.
REQUIRED_URLS = ("Homepage", "Documentation", "Source", "Issues")

# hatchling's default pattern for a version source file.
_VERSION_LINE = re.compile(
    r"""^(__version__|VERSION) *= *(['"])v?(?P<version>.+?)\2""", re.MULTILINE
)


def the_version() -> str:
    """The version written in :data:`VERSION_FILE` (exactly one ``__version__`` line)."""
    found = _VERSION_LINE.findall(VERSION_FILE.read_text(encoding="utf-8"))
    assert len(found) == 1, f"{VERSION_FILE}: expected one __version__ line, found {found}"
    return str(found[0][2])


@dataclass(frozen=True)
class Distribution:
    """One distribution of the workspace: its folder and its ``pyproject.toml``."""

    folder: Path

    @cached_property
    def pyproject(self) -> dict[str, Any]:
        """The parsed ``pyproject.toml``."""
        with (self.folder / "pyproject.toml").open("rb") as file:
            return tomllib.load(file)

    @property
    def project(self) -> dict[str, Any]:
        """Its ``[project]`` table."""
        table: dict[str, Any] = self.pyproject["project"]
        return table

    @property
    def name(self) -> str:
        """The distribution's name (``ostinato``, ``ostinato-openai``, …)."""
        return str(self.project["name"])

    @property
    def package(self) -> str:
        """The import package it ships (``ostinato``, ``ostinato_openai``, …)."""
        (path,) = self.pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
        return Path(path).name

    @property
    def where(self) -> str:
        """Its folder, relative to the repository (for messages)."""
        return self.folder.relative_to(ROOT).as_posix()

    def __str__(self) -> str:
        return self.where


def distributions() -> list[Distribution]:
    """``core`` first, then every plugin, in folder order."""
    plugins = sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))
    return [Distribution(ROOT / "core"), *(Distribution(p) for p in plugins)]


_BLOCK = re.compile(r"^```(?P<lang>[^\n]*)\n(?P<body>.*?)^```\s*$", re.DOTALL | re.MULTILINE)


def readme_example() -> tuple[str, str]:
    """The README's "Twenty lines" script and the output it shows, as a new user copies
    them (the script's python block and the plain block right after it)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Twenty lines\n", 1)[1].split("\n## ", 1)[0]
    blocks = list(_BLOCK.finditer(section))
    assert len(blocks) >= 2 and blocks[0].group("lang").strip() == "python", section
    assert blocks[1].group("lang").strip() == "", "the script's output follows it"
    return blocks[0].group("body"), blocks[1].group("body")
