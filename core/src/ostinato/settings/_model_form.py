"""What ``OSTINATO_MODEL`` / ``--model`` must look like, with an example fitting the value.

``provider:model`` is the form; a value missing the colon (``llamacpp``) gets an example
for the provider it names (``llamacpp:default``), not someone else's. This module holds
text only and imports nothing of ostinato.
"""

from __future__ import annotations

from typing import Final

__all__ = ["EXAMPLE_MODELS", "model_example"]

#: A model of each provider published with ostinato, as ``OSTINATO_MODEL`` names it.
EXAMPLE_MODELS: Final = {
    "llamacpp": "llamacpp:default",
    "openai": "openai:gpt-4.1-mini",
    "anthropic": "anthropic:claude-sonnet-4-5",
    "ollama": "ollama:qwen3",
}


def model_example(value: str) -> str:
    """An example of ``provider:model`` fitting ``value``: the provider's own model when
    ``value`` is the bare name of a provider published with ostinato,
    ``openai:gpt-4.1-mini`` otherwise (a bare word may as well be a model's name)."""
    return EXAMPLE_MODELS.get(value.strip().lower(), EXAMPLE_MODELS["openai"])
