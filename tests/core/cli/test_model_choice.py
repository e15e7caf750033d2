"""Which model ``ostinato chat`` uses, and what its failures say."""

from __future__ import annotations

import pytest

from ostinato.cli._model_choice import ModelChoice, describe_model_error
from ostinato.config import parse_model
from ostinato.errors import (
    ConfigurationError,
    ModelTimeoutError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)
from tests.core.cli.cli_process import run_main

CHOICE = ModelChoice("acme:big", "acme", "--model")


@pytest.mark.parametrize(
    ("model", "local"),
    [
        ("llamacpp:default", True),
        ("llamacpp:", True),
        ("LlamaCpp: default ", True),
        ("llamacpp:/models/x.gguf", False),
        ("openai:default", False),
    ],
)
def test_the_local_default(model, local):
    assert ModelChoice(model, model.partition(":")[0], "--model").is_local_default is local


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (
            ModelTimeoutError("read timed out", provider="acme"),
            "the acme model server did not answer in time: read timed out\n"
            "fix: try again, or raise OSTINATO_ACME_TIMEOUT",
        ),
        (
            NotFoundError("model 'big' not found", status=404),
            "acme does not know the model of 'acme:big' (HTTP 404): model 'big' not found\n"
            "fix: check the model name; `ostinato models` lists the installed providers",
        ),
        (
            RateLimitError("slow down", provider="acme", retry_after=3.0),
            "acme is rate limiting requests (retry after 3 s): slow down\n"
            "fix: wait and try again, or raise your provider's limits",
        ),
        (
            PermissionDeniedError("no access", provider="acme", status=403),
            "acme denied access to acme:big (HTTP 403): no access\n"
            "fix: use a key allowed to use this model, or another model (--model)",
        ),
        (
            ServerError("boom", provider="acme", status=500),
            "the acme model failed (ServerError): boom\n"
            "fix: try again; if it persists, check the model server's logs",
        ),
        (
            ServerError("the server crashed\nfix: read its log at /tmp/x.log", provider="acme"),
            "the server crashed\nfix: read its log at /tmp/x.log",
        ),
    ],
)
def test_model_errors_say_what_failed_and_the_fix(error, expected):
    assert describe_model_error(error, CHOICE) == expected


def test_details_are_kept_and_a_local_server_points_at_its_log():
    from ostinato.errors import ModelConnectionError

    error = ModelConnectionError(
        "acme: server did not become healthy\n  model: /m.gguf\n  log: /tmp/s.log",
        provider="acme",
    )
    error.log_path = "/tmp/s.log"
    assert describe_model_error(error, CHOICE).splitlines() == [
        "the local acme model server failed: acme: server did not become healthy",
        "  model: /m.gguf",
        "  log: /tmp/s.log",
        "fix: read its log (/tmp/s.log); `ostinato config` shows the OSTINATO_ACME_* settings "
        "it started with",
    ]


@pytest.mark.parametrize(
    ("value", "example"),
    [
        ("llamacpp", "llamacpp:default"),
        ("openai", "openai:gpt-4.1-mini"),
        ("anthropic", "anthropic:claude-sonnet-4-5"),
        ("ollama", "ollama:qwen3"),
        ("gpt-4.1-mini", "openai:gpt-4.1-mini"),
    ],
)
def test_a_model_without_a_colon_gets_the_form_and_an_example_of_its_provider(
    value, example, scripted, capsys
):
    code, _, err = run_main(capsys, "chat", "--model", value, "hi")
    assert code == 2
    assert err == (
        f"ostinato: error: --model {value!r} is not provider:model; fix: write it like {example}\n"
    )
    with pytest.raises(ConfigurationError, match=f"fix: write it like OSTINATO_MODEL={example}$"):
        parse_model(value)
