"""``UsageLimits`` and the check the loop makes before a tool round."""

from __future__ import annotations

import pytest

from ostinato.advisors import UsageLimits
from ostinato.advisors._usage_limits import budget_answer, usage_breach
from ostinato.model import FinishReason
from ostinato.testing import text_response


def breach(limits, rounds=1, tokens=0, calls=0, batch=1):
    return usage_breach(limits, rounds=rounds, total_tokens=tokens, tool_calls=calls, batch=batch)


def test_no_limits_never_breach():
    assert breach(None, rounds=99, tokens=10**9, calls=999) is None
    assert UsageLimits().is_empty
    assert breach(UsageLimits(), rounds=99) is None


def test_each_limit():
    assert breach(UsageLimits(model_requests=2), rounds=1) is None
    found = breach(UsageLimits(model_requests=2), rounds=2)
    assert (found.name, found.limit, found.used) == ("model_requests", 2, 2)
    assert breach(UsageLimits(total_tokens=100), tokens=99) is None
    assert breach(UsageLimits(total_tokens=100), tokens=100).name == "total_tokens"
    assert breach(UsageLimits(tool_calls=3), calls=1, batch=2) is None
    assert breach(UsageLimits(tool_calls=3), calls=2, batch=2).name == "tool_calls"


def test_the_answer_says_which_limit_and_how_to_change_it():
    found = breach(UsageLimits(total_tokens=10), tokens=12)
    answer = budget_answer(text_response("asked"), found)
    assert answer.text == (
        "Stopped: the turn reached its usage limit total_tokens=10 (used 12) while the model "
        "still asked for tools. Raise the limit (UsageLimits) if the task needs more."
    )
    assert answer.has_finish_reasons(FinishReason.USAGE_LIMIT_EXCEEDED)


@pytest.mark.parametrize("field", ["model_requests", "total_tokens", "tool_calls"])
@pytest.mark.parametrize("value", [0, -1, True, 1.5])
def test_limits_must_be_positive_ints(field, value):
    with pytest.raises(ValueError, match=rf"UsageLimits\.{field} must be a positive int"):
        UsageLimits(**{field: value})
