"""The llama.cpp embedding model's server: the chat server's model and binary, started
in embedding mode (the end-to-end retrieval on the real model is in tests/e2e)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ostinato.errors import ConfigurationError
from ostinato_llamacpp import ServerSpec
from ostinato_llamacpp._settings import LlamaCppSettings
from ostinato_llamacpp.embedding import EMBEDDING_ARGS, LlamaCppEmbeddingModel, embedding_spec


def test_the_embedding_server_runs_the_chat_model_in_embedding_mode():
    chat = ServerSpec(
        binary=Path("/bin/llama-server"),
        model=Path("/models/m.gguf"),
        threads=2,
        context=8192,
        chat_template=Path("/t.jinja"),
        alias="default",
        extra_args=("--mlock",),
    )
    spec = embedding_spec(chat)
    command = spec.command(8080)
    assert command[:3] == ["/bin/llama-server", "--model", "/models/m.gguf"]
    assert command[-len(EMBEDDING_ARGS) - 1 :] == ["--mlock", *EMBEDDING_ARGS]
    assert "--chat-template-file" not in command
    assert command[command.index("--ctx-size") + 1] == "2048"
    assert embedding_spec(spec) == spec  # applying it twice changes nothing
    assert spec != chat  # a server of its own, never the chat server


def test_a_url_is_used_as_it_is_and_a_missing_model_says_how_to_set_it_up(tmp_path):
    model = LlamaCppEmbeddingModel("http://127.0.0.1:9/")
    assert repr(model) == "LlamaCppEmbeddingModel('http://127.0.0.1:9')"
    assert model.server is None
    settings = LlamaCppSettings(cache_dir=tmp_path)
    with pytest.raises(ConfigurationError, match="ostinato local setup"):
        LlamaCppEmbeddingModel(settings=settings)
