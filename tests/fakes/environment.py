"""An environment without ostinato's variables, nor the providers' ecosystem ones.

:func:`clean_provider_environment` removes every ``OSTINATO_*`` variable and each
variable a provider plugin falls back to (``OPENAI_API_KEY``, ``OLLAMA_HOST``...), and
moves into an empty directory, so that no ``.env`` of the developer's checkout is read.
Use it from a fixture (it takes pytest's ``monkeypatch``, which undoes it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

__all__ = ["PROVIDER_FALLBACKS", "clean_provider_environment"]

#: The ecosystem's variables the provider plugins read as fallbacks.
PROVIDER_FALLBACKS = frozenset(
    {
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_ORG_ID",
        "OPENAI_PROJECT_ID",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OLLAMA_HOST",
        "OLLAMA_API_KEY",
    }
)


def clean_provider_environment(monkeypatch: pytest.MonkeyPatch, directory: Path) -> None:
    """Remove ostinato's and the providers' variables; work in ``directory``."""
    for name in list(os.environ):
        if name.startswith("OSTINATO_") or name in PROVIDER_FALLBACKS:
            monkeypatch.delenv(name)
    monkeypatch.chdir(directory)  # no .env from the developer's checkout
