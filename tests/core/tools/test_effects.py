"""Effect classes: declared on tools, and what the loop does with them — the order of a
batch, retries, approvals by class — on the call and the stream path, with sync and
async tools; undeclared tools run as before."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from ostinato import ChatClient, tool
from ostinato.advisors import ToolCallingAdvisor
from ostinato.errors import ConfigurationError, RetryableToolError, ToolExecutionError
from ostinato.events import LoopEvent, ToolFinished, ToolStarted
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato.tools import (
    DefaultToolCallingManager,
    EffectPolicy,
    FunctionToolCallback,
    InDoubtRule,
    PendingToolCalls,
    ToolEffect,
    ToolMetadata,
    approve_effects,
)

MODES = ["call", "stream"]


def client(model: ScriptedChatModel, policy: EffectPolicy | None = None) -> ChatClient:
    manager = DefaultToolCallingManager(effects=policy)
    return (
        ChatClient.builder(model)
        .tool_advisor(ToolCallingAdvisor(tool_calling_manager=manager))
        .build()
    )


async def ask(
    chat: ChatClient,
    mode: str,
    tools: list[Any],
    events: list[LoopEvent] | None = None,
    **spec: Any,
) -> Any:
    request = chat.prompt().user("go").tools(*tools)
    if events is not None:
        request = request.listener(events.append)
    if "policy" in spec:
        request = request.approval_policy(spec["policy"])
    if mode == "call":
        return await request.call().achat_client_response()
    last = None
    async for chunk in request.stream().achat_client_responses():
        last = chunk
    return last


class Log:
    """What the tools did, in order, with a sync and an async face for each tool."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._lock = threading.Lock()

    def add(self, line: str) -> None:
        with self._lock:
            self.lines.append(line)

    def tools(self, sync: bool) -> list[Any]:
        log = self

        def make(name: str, effect: str | None) -> Any:
            if sync:

                def run(item: str) -> str:
                    log.add(f"{name}>{item}")
                    time.sleep(0.05)
                    log.add(f"{name}<{item}")
                    return f"{name} {item}"

            else:

                async def run(item: str) -> str:  # type: ignore[misc]
                    log.add(f"{name}>{item}")
                    await asyncio.sleep(0.05)
                    log.add(f"{name}<{item}")
                    return f"{name} {item}"

            run.__name__ = name
            return tool(name=name, effect=effect)(run)

        return [
            make("read", "read_only"),
            make("lookup", "idempotent"),
            make("write", "side_effecting"),
            make("delete", "destructive"),
            make("plain", None),
        ]


def batch(*calls: tuple[str, str]) -> Any:
    return tool_call_response(*[(name, {"item": item}) for name, item in calls])


# -- declaring ------------------------------------------------------------------------


def test_the_decorator_takes_effects_by_name_and_checks_them() -> None:
    @tool(effect="destructive", in_doubt="fail")
    def drop(table: str) -> str:
        """Drop a table."""
        return table

    metadata = FunctionToolCallback(drop).tool_metadata
    assert metadata.effect is ToolEffect.DESTRUCTIVE
    assert metadata.in_doubt_rule() is InDoubtRule.FAIL
    with pytest.raises(ConfigurationError, match="effect one of read_only"):
        tool(effect="harmless")
    with pytest.raises(ConfigurationError, match="needs a reconcile hook"):
        tool(effect="destructive", in_doubt="reconcile")
    with pytest.raises(ConfigurationError, match="must be callable"):
        tool(effect="destructive", reconcile="yes")  # type: ignore[arg-type]


def test_the_in_doubt_rule_defaults_by_effect_and_hook() -> None:
    assert ToolMetadata().in_doubt_rule() is None  # undeclared: runs again, as before
    assert ToolMetadata(effect=ToolEffect.READ_ONLY).in_doubt_rule() is None
    assert ToolMetadata(effect=ToolEffect.IDEMPOTENT).in_doubt_rule() is None
    assert ToolMetadata(effect=ToolEffect.DESTRUCTIVE).in_doubt_rule() is InDoubtRule.APPROVE
    assert ToolMetadata(effect=ToolEffect.SIDE_EFFECTING).in_doubt_rule() is InDoubtRule.APPROVE
    hooked = ToolMetadata(effect=ToolEffect.DESTRUCTIVE, reconcile=lambda a, k: None)
    assert hooked.in_doubt_rule() is InDoubtRule.RECONCILE


def test_the_policy_checks_its_values() -> None:
    assert EffectPolicy(approve="destructive").approve == {ToolEffect.DESTRUCTIVE}  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="retries"):
        EffectPolicy(retries=-1)
    with pytest.raises(ConfigurationError, match="approve"):
        EffectPolicy(approve=frozenset({"loud"}))  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="EffectPolicy"):
        DefaultToolCallingManager(effects="strict")  # type: ignore[arg-type]


# -- ordering -------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sync", [True, False], ids=["sync", "async"])
async def test_reads_run_together_first_then_effects_one_at_a_time_in_call_order(
    mode: str, sync: bool
) -> None:
    log = Log()
    asking = batch(("delete", "a"), ("read", "b"), ("write", "c"), ("lookup", "d"), ("plain", "e"))
    answer = await ask(client(ScriptedChatModel([asking, "done"])), mode, log.tools(sync))
    assert answer.chat_response.text == "done"
    reads, effects = log.lines[:6], log.lines[6:]
    # The read-only, idempotent and undeclared calls overlap: all started before one ended.
    assert sorted(reads[:3]) == ["lookup>d", "plain>e", "read>b"]
    assert sorted(reads[3:]) == ["lookup<d", "plain<e", "read<b"]
    # Then each call with effects alone, in the model's order.
    assert effects == ["delete>a", "delete<a", "write>c", "write<c"]


@pytest.mark.parametrize("mode", MODES)
async def test_undeclared_tools_keep_running_together_in_any_batch(mode: str) -> None:
    log = Log()
    asking = batch(("plain", "a"), ("plain", "b"), ("plain", "c"))
    await ask(client(ScriptedChatModel([asking, "done"])), mode, log.tools(False))
    assert [line[-1] for line in log.lines[:3]] == ["a", "b", "c"]
    assert all(">" in line for line in log.lines[:3])


@pytest.mark.parametrize("mode", MODES)
async def test_ordering_can_be_turned_off(mode: str) -> None:
    log = Log()
    asking = batch(("delete", "a"), ("write", "b"))
    policy = EffectPolicy(order_effects=False)
    await ask(client(ScriptedChatModel([asking, "done"]), policy), mode, log.tools(False))
    assert sorted(log.lines[:2]) == ["delete>a", "write>b"]  # together, as undeclared


@pytest.mark.parametrize("mode", MODES)
async def test_after_a_failed_effect_the_later_effects_of_the_batch_do_not_run(mode: str) -> None:
    ran: list[str] = []

    @tool(effect="side_effecting")
    def charge(order: str) -> str:
        """Charge an order."""
        ran.append(f"charge {order}")
        raise ValueError("card declined")

    @tool(effect="destructive")
    def ship(order: str) -> str:
        """Ship an order."""
        ran.append(f"ship {order}")
        return "shipped"

    asking = tool_call_response(("charge", {"order": "1"}), ("ship", {"order": "1"}))
    model = ScriptedChatModel([asking, "sorry"])
    events: list[LoopEvent] = []
    await ask(client(model), mode, [charge, ship], events)
    assert ran == ["charge 1"]
    responses = model.prompts[1].messages[-1].responses  # type: ignore[attr-defined]
    assert "card declined" in responses[0].response_data
    assert "was not run: the call 'charge'" in responses[1].response_data
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [(e.call.name, e.effect) for e in finished] == [
        ("charge", "side_effecting"),
        ("ship", None),
    ]
    # Without stop_after_failure the later call runs.
    ran.clear()
    model = ScriptedChatModel([asking, "sorry"])
    await ask(client(model, EffectPolicy(stop_after_failure=False)), mode, [charge, ship])
    assert ran == ["charge 1", "ship 1"]


@pytest.mark.parametrize("mode", MODES)
async def test_events_carry_the_effect_class(mode: str) -> None:
    log = Log()
    events: list[LoopEvent] = []
    asking = batch(("read", "a"), ("delete", "b"), ("plain", "c"))
    await ask(client(ScriptedChatModel([asking, "done"])), mode, log.tools(False), events)
    started = {e.call.name: e.effect for e in events if isinstance(e, ToolStarted)}
    finished = {e.call.name: e.effect for e in events if isinstance(e, ToolFinished)}
    assert started == finished == {"read": "read_only", "delete": "destructive", "plain": None}
    data = next(e for e in events if isinstance(e, ToolStarted) and e.effect).to_dict()
    assert LoopEvent.from_dict(data) == next(
        e for e in events if isinstance(e, ToolStarted) and e.effect
    )


# -- retries --------------------------------------------------------------------------


def flaky(effect: str | None, failures: int, sync: bool, error: Callable[[], Exception]) -> Any:
    calls: list[int] = []

    if sync:

        def fetch(key: str) -> str:
            calls.append(1)
            if len(calls) <= failures:
                raise error()
            return f"value of {key}"

    else:

        async def fetch(key: str) -> str:  # type: ignore[misc]
            calls.append(1)
            if len(calls) <= failures:
                raise error()
            return f"value of {key}"

    return tool(effect=effect)(fetch), calls


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sync", [True, False], ids=["sync", "async"])
@pytest.mark.parametrize(
    ("effect", "tries", "answer"),
    [
        ("read_only", 3, "value of k"),
        ("idempotent", 3, "value of k"),
        ("side_effecting", 1, "busy"),
        ("destructive", 1, "busy"),
        (None, 1, "busy"),
    ],
)
async def test_retryable_failures_are_retried_only_for_read_only_and_idempotent_tools(
    mode: str, sync: bool, effect: str | None, tries: int, answer: str
) -> None:
    fetch, calls = flaky(effect, 2, sync, lambda: RetryableToolError("busy"))
    model = ScriptedChatModel([tool_call_response(("fetch", {"key": "k"})), "done"])
    policy = EffectPolicy(retry_delay=0.001)
    await ask(client(model, policy), mode, [fetch])
    assert len(calls) == tries
    assert answer in model.prompts[1].messages[-1].responses[0].response_data  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", MODES)
async def test_a_failure_not_marked_retryable_is_not_retried(mode: str) -> None:
    fetch, calls = flaky("read_only", 1, False, lambda: ValueError("no such key"))
    model = ScriptedChatModel([tool_call_response(("fetch", {"key": "k"})), "done"])
    await ask(client(model, EffectPolicy(retry_delay=0)), mode, [fetch])
    assert len(calls) == 1


async def test_a_callback_marks_its_own_error_retryable_and_retries_stop_at_the_policy() -> None:
    fetch, calls = flaky("read_only", 9, False, lambda: ToolExecutionError("busy", retryable=True))
    model = ScriptedChatModel([tool_call_response(("fetch", {"key": "k"})), "done"])
    await ask(client(model, EffectPolicy(retries=1, retry_delay=0)), "call", [fetch])
    assert len(calls) == 2


# -- approvals by class ---------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_one_setting_makes_every_destructive_call_wait_for_a_decision(mode: str) -> None:
    log = Log()
    asking = batch(("read", "a"), ("delete", "b"), ("write", "c"))
    policy = EffectPolicy(approve=frozenset({ToolEffect.DESTRUCTIVE}))
    answer = await ask(client(ScriptedChatModel([asking]), policy), mode, log.tools(False))
    pending = PendingToolCalls.of(answer)
    assert pending is not None and [c.name for c in pending.calls] == ["delete"]
    assert "delete>b" not in log.lines and {"read>a", "write>c"} <= set(log.lines)


@pytest.mark.parametrize("mode", MODES)
async def test_a_request_policy_approves_by_class(mode: str) -> None:
    log = Log()
    asking = batch(("write", "a"), ("delete", "b"), ("plain", "c"))
    policy = approve_effects("side_effecting", ToolEffect.DESTRUCTIVE)
    answer = await ask(client(ScriptedChatModel([asking])), mode, log.tools(False), policy=policy)
    pending = PendingToolCalls.of(answer)
    assert pending is not None and [c.name for c in pending.calls] == ["write", "delete"]
    assert log.lines == ["plain>c", "plain<c"]


def test_the_environment_sets_the_policy_of_auto_configured_clients(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ostinato.config._tool_advisor import create_tool_calling_manager
    from ostinato.settings import Settings

    monkeypatch.setenv("OSTINATO_TOOLS__APPROVE_EFFECTS", "destructive,side_effecting")
    monkeypatch.setenv("OSTINATO_TOOLS__EAGER_START", "true")
    monkeypatch.setenv("OSTINATO_TOOLS__TOOL_RETRIES", "4")
    effects = create_tool_calling_manager(Settings()).effects
    assert effects.approve == {ToolEffect.DESTRUCTIVE, ToolEffect.SIDE_EFFECTING}
    assert effects.eager_start and effects.retries == 4 and effects.order_effects
