"""Model attempt scopes (``ostinato.instrumentation``): entered around each HTTP attempt
of a model call, the first request and each retry, call and stream."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from ostinato.errors import ServerError
from ostinato.instrumentation import (
    ModelAttempt,
    ModelAttemptStatusReport,
    add_model_attempt_scope,
    model_attempt_scopes,
)
from ostinato.prompt import Prompt
from ostinato_openai import OpenAIChatModel
from tests.plugins.openai.fakes import model_for, status_reply, stream_chunks

Log = list[tuple[object, ...]]


@pytest.fixture
def attempt_log() -> Iterator[Log]:
    log: Log = []

    @contextlib.contextmanager
    def scope(attempt: ModelAttempt) -> Iterator[ModelAttemptStatusReport]:
        log.append(("enter", attempt))
        try:
            yield lambda status: log.append(("status", status))
        except BaseException as error:
            log.append(("fail", type(error).__name__))
            raise
        log.append(("exit",))

    remove = add_model_attempt_scope(scope)
    yield log
    remove()
    assert scope not in model_attempt_scopes()


def _model(*statuses: int, retries: int = 2) -> OpenAIChatModel:
    model, _ = model_for(
        *map(status_reply, statuses),
        api_key="sk-attempt-scope-secret",
        base_url="https://api.example.test/v1",
        max_retries=retries,
    )
    return model


def _attempts(log: Log) -> list[ModelAttempt]:
    return [entry[1] for entry in log if entry[0] == "enter"]  # type: ignore[misc]


@pytest.mark.parametrize(("mode", "failed"), [("call", 503), ("stream", 500)])
async def test_each_attempt_of_a_call_or_a_stream_is_wrapped(
    attempt_log: Log, mode: str, failed: int
) -> None:
    async with _model(failed, 200) as model:
        if mode == "call":
            text = (await model.call(Prompt("hi"))).text
        else:
            text = "".join(chunk.text or "" for chunk in await stream_chunks(model))

    assert text == "hi"
    streamed = mode == "stream"
    assert [(a.resend_count, a.stream) for a in _attempts(attempt_log)] == [
        (0, streamed),
        (1, streamed),
    ]
    first = _attempts(attempt_log)[0]
    assert (first.provider, first.method) == ("openai", "POST")
    assert first.url == "https://api.example.test/v1/chat/completions"
    assert [e for e in attempt_log if e[0] != "enter"] == [
        ("status", failed),
        ("fail", "AttemptFailed"),
        ("status", 200),
        ("exit",),
    ]


async def test_the_last_failed_attempt_leaves_its_scope_with_the_error(attempt_log: Log) -> None:
    async with _model(500, 500, retries=1) as model:
        with pytest.raises(ServerError):
            await model.call(Prompt("hi"))

    assert len(_attempts(attempt_log)) == 2
    assert [e[0] for e in attempt_log].count("fail") == 2
