from __future__ import annotations

import pytest

from ostinato.errors import ToolExecutionError, ToolTimeoutError
from ostinato.messages import ToolCall
from ostinato.tools import ToolContext
from ostinato.tools._execution import groups_of, new_semaphore, run_group
from ostinato.tools._unit_wrappers import CORE_TOOL_STACK
from ostinato.units import ToolInvocation
from tests.core.tools.fakes import MISSION, RecordingCallback


def job(
    index: int, name: str, *, sequential: bool = False, result: object = MISSION, semaphore=None
) -> ToolInvocation:
    return ToolInvocation(
        ToolCall(str(index), name, "{}"),
        RecordingCallback(name, result),
        "{}",
        ToolContext(),
        return_direct=False,
        sequential=sequential,
        index=index,
        semaphore=semaphore,
    )


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("", []),
        ("ccc", [[0, 1, 2]]),
        ("ccScc", [[0, 1], [2], [3, 4]]),
        ("Scc", [[0], [1, 2]]),
        ("ccS", [[0, 1], [2]]),
        ("SS", [[0], [1]]),
    ],
)
def test_the_batch_is_cut_at_sequential_calls(pattern: str, expected: list[list[int]]) -> None:
    jobs = [job(i, f"t{i}", sequential=(kind == "S")) for i, kind in enumerate(pattern)]
    assert [[j.index for j in group] for group in groups_of(jobs)] == expected


def test_no_semaphore_without_a_cap() -> None:
    assert new_semaphore(None) is None


async def test_outcomes_are_texts_or_tool_errors_in_call_order() -> None:
    cap = new_semaphore(2)
    jobs = [
        job(0, "ok", semaphore=cap),
        job(1, "bad", result=ValueError("v"), semaphore=cap),
        job(2, "none", result=None, semaphore=cap),
    ]
    outcomes = await run_group(jobs, CORE_TOOL_STACK)
    assert outcomes[0] == MISSION
    assert isinstance(outcomes[1], ToolExecutionError)
    assert str(outcomes[1]) == "ValueError: v"
    assert isinstance(outcomes[1].__cause__, ValueError)
    assert outcomes[1].tool_name == "bad"
    assert outcomes[2] == ""


async def test_a_timeout_outcome_carries_the_limit() -> None:
    timed_out = ToolTimeoutError("tool 'x' timed out after 1.0 s", timeout=1.0)
    (outcome,) = await run_group([job(0, "x", result=timed_out)], CORE_TOOL_STACK)
    assert outcome is timed_out
    assert outcome.tool_name == "x"
