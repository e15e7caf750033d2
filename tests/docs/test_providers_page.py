"""docs/providers.md: its table lists every provider published with ostinato, with the
example model the errors give for it."""

from __future__ import annotations

from pathlib import Path

from ostinato.settings._model_form import EXAMPLE_MODELS

PAGE = Path(__file__).resolve().parents[2] / "docs" / "providers.md"


def test_the_table_lists_every_published_provider_with_its_example_model() -> None:
    rows = [line for line in PAGE.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    for provider, example in EXAMPLE_MODELS.items():
        row = next((r for r in rows if f"`ostinato-{provider}`" in r), None)
        assert row is not None, f"docs/providers.md has no row for ostinato-{provider}"
        assert f"`{example}`" in row
