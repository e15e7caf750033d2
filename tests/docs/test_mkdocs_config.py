"""mkdocs.yml finds the source of core and of every plugin by path, so the API reference
builds from the repository whether or not the distributions are installed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["core/src", *sorted(f"plugins/{p.parent.name}/src" for p in ROOT.glob("plugins/*/src"))]


def _paths() -> list[str]:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    (mkdocstrings,) = [p["mkdocstrings"] for p in config["plugins"] if isinstance(p, dict)]
    paths: list[str] = mkdocstrings["handlers"]["python"]["paths"]
    return paths


@pytest.mark.parametrize("source", SOURCES)
def test_the_api_reference_reads_every_source_tree(source: str) -> None:
    assert source in _paths(), (
        f"{source} is missing from the mkdocstrings paths of mkdocs.yml\n"
        f"fix: add `- {source}` under plugins: mkdocstrings: handlers: python: paths"
    )


def test_every_path_exists() -> None:
    assert [p for p in _paths() if not (ROOT / p).is_dir()] == []
