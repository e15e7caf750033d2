"""``model_error``: an adapter's reading of an error body made into the typed error."""

from __future__ import annotations

from ostinato.errors import ModelError, NotFoundError, RateLimitError, ServerError
from ostinato.http import ErrorReport, json_text, model_error


def test_the_message_layout_and_the_class_of_the_status() -> None:
    report = ErrorReport(
        "no such model",
        404,
        classification="not_found_error/model",
        detail=" [param: model]",
        hint="fix: check the model name",
        error_type="not_found_error",
        code="model",
        request_id="req_1",
    )
    error = model_error(report, provider="acme", headers={})
    assert type(error) is NotFoundError
    assert str(error) == (
        "acme error 404 (not_found_error/model): no such model [param: model]\n"
        "fix: check the model name"
    )
    assert (error.provider, error.status, error.error_type, error.code, error.request_id) == (
        "acme",
        404,
        "not_found_error",
        "model",
        "req_1",
    )


def test_no_status_is_a_server_error_and_the_wait_comes_from_the_headers() -> None:
    error = model_error(ErrorReport("boom", None), provider="acme", headers={"retry-after": "2"})
    assert type(error) is ServerError
    assert str(error) == "acme error: boom"
    assert error.retry_after == 2.0
    assert isinstance(model_error(ErrorReport("slow", 429), provider="acme"), RateLimitError)


def test_the_secret_is_masked_in_the_message_and_every_field() -> None:
    key = "sk-secret-123"
    report = ErrorReport(
        f"bad key {key}", 401, error_type=key, code=key, request_id=key, hint=f"fix: not {key}"
    )
    error = model_error(report, provider="acme", secret=key)
    assert isinstance(error, ModelError)
    assert key not in str(error)
    assert key not in repr(error)


def test_json_text() -> None:
    assert json_text(None) is None
    assert json_text("é") == "é"
    assert json_text({"a": "é"}) == '{"a": "é"}'
