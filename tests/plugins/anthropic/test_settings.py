"""``AnthropicSettings`` at a gateway.

(Its defaults, variables and fallbacks are checked with the other adapters' settings.)
"""

from __future__ import annotations

import pytest

from ostinato_anthropic import create_chat_model
from tests.fakes.environment import clean_provider_environment


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path):
    clean_provider_environment(monkeypatch, tmp_path)


def test_a_gateway_model_keeps_the_required_max_tokens(monkeypatch: pytest.MonkeyPatch):
    # (That a gateway needs no key is part of the provider contract.)
    monkeypatch.setenv("OSTINATO_ANTHROPIC_BASE_URL", "http://127.0.0.1:4000")
    model = create_chat_model("local")
    assert model.default_options.model == "local"
    assert model.default_options.max_tokens == 4096
    assert "x-api-key" not in model._headers  # type: ignore[attr-defined]
