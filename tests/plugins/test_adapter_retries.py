"""How each HTTP adapter retries: the statuses it retries with backoff, Retry-After and
retry-after-ms honoured, and when a call gives up.

Parametrised over the adapters (:mod:`tests.plugins.failing`); the clock never really
sleeps. (What each adapter adds, such as Anthropic's x-should-retry, OpenAI's exhausted
quota or streams retried before they deliver, stays with its own tests; what the policy
decides is ``tests/core/transport/test_retry.py``'s.)
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from ostinato.errors import BadRequestError, ModelError, RateLimitError, ServerError
from ostinato.prompt import Prompt
from tests.fakes.mock_model import FakeTime
from tests.plugins.failing import ADAPTERS, Failing, each_adapter


@pytest.mark.parametrize(
    ("adapter", "status"),
    [(a, status) for a in ADAPTERS for status in a.retried],
    ids=[f"{a.name}-{status}" for a in ADAPTERS for status in a.retried],
)
async def test_retryable_statuses_are_retried_with_backoff(adapter: Failing, status: int):
    time = FakeTime()
    failure = adapter.failure(status, {})
    model, sent = adapter.model_for(failure, failure, adapter.ok, time=time, max_retries=2)
    assert (await model.call(Prompt("hi"))).text == "ok"
    assert len(sent) == 3
    assert len(time.sleeps) == 2
    assert 0.375 <= time.sleeps[0] <= 0.5
    assert 0.75 <= time.sleeps[1] <= 1.0


@each_adapter
async def test_retry_after_and_retry_after_ms_are_honoured(adapter: Failing):
    time = FakeTime()
    model, _ = adapter.model_for(
        adapter.failure(429, {"retry-after": "7"}),
        adapter.failure(adapter.busy, {"retry-after-ms": "250"}),
        adapter.ok,
        time=time,
        max_retries=2,
    )
    await model.call(Prompt("hi"))
    assert time.sleeps == [7.0, 0.25]


class GivingUp(NamedTuple):
    """A call that raises the last of its replies' errors."""

    #: The statuses replied, in order (``"busy"``: the adapter's overloaded status).
    statuses: tuple[int | str, ...]
    max_retries: int
    raises: type[ModelError]
    #: The requests sent (each retry waited for once).
    attempts: int
    #: The ``retry-after`` header of every reply.
    retry_after: str | None = None


GIVING_UP = {
    "client-error": GivingUp((400,), 3, BadRequestError, 1),
    "retries-bounded": GivingUp((500, 502, "busy"), 2, ServerError, 3),
    "no-retries": GivingUp(("busy",), 0, ServerError, 1),
    "retry-after-beyond-the-limit": GivingUp((429,), 3, RateLimitError, 1, retry_after="3600"),
}


@each_adapter
@pytest.mark.parametrize("case", list(GIVING_UP))
async def test_a_call_gives_up_with_the_last_error(adapter: Failing, case: str):
    statuses, max_retries, raises, attempts, retry_after = GIVING_UP[case]
    codes = [adapter.busy if status == "busy" else int(status) for status in statuses]
    headers = {} if retry_after is None else {"retry-after": retry_after}
    time = FakeTime()
    model, sent = adapter.model_for(
        *(adapter.failure(code, headers) for code in codes),
        adapter.ok,
        time=time,
        max_retries=max_retries,
    )
    with pytest.raises(raises, match=f"status {codes[-1]}") as caught:
        await model.call(Prompt("hi"))
    assert caught.value.retry_after == (None if retry_after is None else float(retry_after))
    assert len(sent) == attempts
    assert len(time.sleeps) == attempts - 1
