"""``OllamaSettings``: OLLAMA_HOST's rules, the words of THINK, KEEP_ALIVE and FORMAT.

(Its defaults, variables and fallbacks are checked with the other adapters' settings.)
"""

from __future__ import annotations

import pytest

from ostinato_ollama import OllamaChatOptions, OllamaSettings, create_chat_model, ollama_base_url
from tests.fakes.environment import clean_provider_environment


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path):
    clean_provider_environment(monkeypatch, tmp_path)


def test_the_default_model_sends_no_key():
    model = create_chat_model("", OllamaSettings())
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


def test_the_ostinato_base_url_wins_over_ollama_host(monkeypatch: pytest.MonkeyPatch):
    # (OLLAMA_HOST and OLLAMA_API_KEY alone are checked with the other adapters' fallbacks.)
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0")
    monkeypatch.setenv("OSTINATO_OLLAMA_BASE_URL", "https://ollama.com")
    assert OllamaSettings().base_url == "https://ollama.com"


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
