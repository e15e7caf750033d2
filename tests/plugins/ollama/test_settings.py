"""``OllamaSettings``: the OSTINATO_OLLAMA_* variables, OLLAMA_HOST, and the factory."""

from __future__ import annotations

import pytest

from ostinato_ollama import OllamaChatOptions, OllamaSettings, create_chat_model, ollama_base_url
from tests.fakes.environment import clean_provider_environment


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path):
    clean_provider_environment(monkeypatch, tmp_path)


def test_defaults():
    settings = OllamaSettings()
    assert settings.base_url == "http://localhost:11434"
    assert settings.api_key is None
    assert (settings.timeout, settings.connect_timeout) == (600.0, 10.0)
    assert (settings.max_retries, settings.max_retry_time) == (2, 120.0)
    assert settings.model == "qwen3"
    assert (settings.keep_alive, settings.think, settings.format) == (None, None, None)
    model = create_chat_model("", settings)
    assert model.default_options == OllamaChatOptions(model="qwen3")
    assert "authorization" not in model._headers  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("host", "base_url"),
    [
        ("", "http://localhost:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("0.0.0.0:8080", "http://127.0.0.1:8080"),
        ("gpu-box", "http://gpu-box:11434"),
        ("gpu-box:9000", "http://gpu-box:9000"),
        ("http://gpu-box", "http://gpu-box"),
        ("https://ollama.com", "https://ollama.com"),
        ("https://ollama.com/", "https://ollama.com"),
        ("http://127.0.0.1:11434", "http://127.0.0.1:11434"),
        ("https://proxy.test/ollama/", "https://proxy.test/ollama"),
        ("[::1]", "http://[::1]:11434"),
        (":11434", "http://127.0.0.1:11434"),
    ],
)
def test_ollama_host_is_read_as_the_ollama_command_reads_it(host: str, base_url: str):
    assert ollama_base_url(host) == base_url


def test_ollama_host_and_key_fallbacks(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0")
    monkeypatch.setenv("OLLAMA_API_KEY", "ollama-key")
    settings = OllamaSettings()
    assert settings.base_url == "http://127.0.0.1:11434"
    assert settings.api_key.get_secret_value() == "ollama-key"  # type: ignore[union-attr]
    monkeypatch.setenv("OSTINATO_OLLAMA_BASE_URL", "https://ollama.com")
    assert OllamaSettings().base_url == "https://ollama.com"


def test_ostinato_variables(monkeypatch: pytest.MonkeyPatch):
    # (The connection variables every provider shares are checked by the provider contract.)
    values = {
        "OSTINATO_OLLAMA_BASE_URL": "gpu-box",
        "OSTINATO_OLLAMA_API_KEY": "ollama-ost",
        "OSTINATO_OLLAMA_MODEL": "llama3.2",
        "OSTINATO_OLLAMA_KEEP_ALIVE": "-1",
        "OSTINATO_OLLAMA_THINK": "high",
        "OSTINATO_OLLAMA_FORMAT": '{"type": "object"}',
        "OSTINATO_OLLAMA_NUM_CTX": "8192",
        "OSTINATO_OLLAMA_TEMPERATURE": "0.2",
        "OSTINATO_OLLAMA_TOP_P": "0.9",
        "OSTINATO_OLLAMA_TOP_K": "40",
        "OSTINATO_OLLAMA_SEED": "7",
        "OSTINATO_OLLAMA_MAX_TOKENS": "256",
        "OSTINATO_OLLAMA_OPTIONS": '{"repeat_penalty": 1.1}',
        "OSTINATO_OLLAMA_EXTRA_BODY": '{"logprobs": true}',
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    settings = OllamaSettings()
    assert "ollama-ost" not in repr(settings)
    model = create_chat_model("", settings)
    assert model.base_url == "http://gpu-box:11434"
    assert model.default_options == OllamaChatOptions(
        model="llama3.2",
        keep_alive=-1,
        think="high",
        format={"type": "object"},
        num_ctx=8192,
        temperature=0.2,
        top_p=0.9,
        top_k=40,
        seed=7,
        max_tokens=256,
        options={"repeat_penalty": 1.1},
        extra_body={"logprobs": True},
    )
    assert model._headers["authorization"] == "Bearer ollama-ost"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("think", "value"),
    [("true", True), ("False", False), ("off", False), ("low", "low"), (" HIGH ", "high")],
)
def test_think_words(monkeypatch: pytest.MonkeyPatch, think: str, value: bool | str):
    monkeypatch.setenv("OSTINATO_OLLAMA_THINK", think)
    assert OllamaSettings().think == value


@pytest.mark.parametrize(
    ("keep_alive", "sent"), [("5m", "5m"), ("300", 300), ("-1", -1), ("0", 0), ("1h30m", "1h30m")]
)
def test_keep_alive(monkeypatch: pytest.MonkeyPatch, keep_alive: str, sent: str | int):
    monkeypatch.setenv("OSTINATO_OLLAMA_KEEP_ALIVE", keep_alive)
    assert create_chat_model("m").default_options.keep_alive == sent


def test_format_json_stays_a_word(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OSTINATO_OLLAMA_FORMAT", "json")
    assert OllamaSettings().format == "json"
