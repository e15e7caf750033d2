"""The model used when none is configured: one rule for the library, the CLI, serve and
the worker.

``OSTINATO_MODEL`` (or ``ostinato chat --model``) names the model; without it, the local
default ``llamacpp:default`` when the ``llamacpp`` provider (``ostinato-llamacpp``) is
installed, and otherwise an error saying what to set or install. ``ostinato.chat_client()``
and ``ostinato chat`` both call :func:`default_model`, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["LOCAL_DEFAULT_MODEL", "LOCAL_PROVIDER", "default_model", "missing_model_fix"]

#: The provider of the zero-config local model (plugin ``ostinato-llamacpp``).
LOCAL_PROVIDER: Final = "llamacpp"
#: The model used when none is configured and the local provider is installed.
LOCAL_DEFAULT_MODEL: Final = f"{LOCAL_PROVIDER}:default"


def default_model(providers: Mapping[str, Any]) -> str | None:
    """The model to use when none is configured: :data:`LOCAL_DEFAULT_MODEL` when its
    provider is among ``providers`` (the registered chat model providers), else ``None``."""
    return LOCAL_DEFAULT_MODEL if LOCAL_PROVIDER in providers else None


def missing_model_fix(*, option: str | None = None) -> str:
    """The ``fix:`` text when no model is configured and there is no default.

    ``option`` is the command-line option that names a model (``--model``), when there
    is one.
    """
    how = (
        f"pass {option} provider:model or set OSTINATO_MODEL"
        if option
        else "set OSTINATO_MODEL=provider:model"
    )
    return (
        f"{how} (e.g. OSTINATO_MODEL=openai:gpt-4.1-mini), or pip install ostinato-llamacpp "
        "for a local model that needs no key"
    )
