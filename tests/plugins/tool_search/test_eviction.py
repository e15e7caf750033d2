"""Eviction strategies, alone and through the advisor."""

from __future__ import annotations

import pytest

from ostinato.errors import ConfigurationError
from ostinato_tool_search import (
    AlwaysEvictStrategy,
    CompositeEvictionStrategy,
    EvictionStrategy,
    LruEvictionStrategy,
    NeverEvictStrategy,
    TtlEvictionStrategy,
)


def test_lru_evicts_the_least_recently_used_beyond_capacity():
    lru = LruEvictionStrategy(2)
    assert lru.on_access("a") == set()
    assert lru.on_access("b") == set()
    assert lru.on_access("a") == set()
    assert lru.on_access("c") == {"b"}


def test_lru_never_evicts_the_session_being_accessed():
    lru = LruEvictionStrategy(1)
    assert lru.on_access("a") == set()
    assert lru.on_access("a") == set()
    assert lru.on_access("b") == {"a"}


def test_lru_forgets_removed_sessions():
    lru = LruEvictionStrategy(2)
    lru.on_access("a")
    lru.on_access("b")
    lru.on_removed("a")
    assert lru.on_access("c") == set()
    assert lru.on_access("d") == {"b"}


@pytest.mark.parametrize("capacity", [0, -1, 1.5, True])
def test_lru_needs_a_positive_capacity(capacity):
    with pytest.raises(ConfigurationError, match="max_sessions must be a positive int"):
        LruEvictionStrategy(capacity)


def test_always_evicts_the_accessed_session_and_never_nothing():
    assert AlwaysEvictStrategy().on_access("x") == {"x"}
    assert NeverEvictStrategy().on_access("x") == set()


def test_ttl_evicts_other_sessions_idle_too_long():
    now = [0.0]
    ttl = TtlEvictionStrategy(10, clock=lambda: now[0])
    assert ttl.on_access("a") == set()
    now[0] = 5
    assert ttl.on_access("b") == set()
    now[0] = 10
    assert ttl.on_access("b") == {"a"}
    now[0] = 100
    assert ttl.on_access("b") == set(), "the accessed session itself is never expired"


@pytest.mark.parametrize("seconds", [0, -3, False])
def test_ttl_needs_a_positive_duration(seconds):
    with pytest.raises(ConfigurationError, match="ttl must be a positive number"):
        TtlEvictionStrategy(seconds)


def test_composite_evicts_what_any_strategy_evicts_and_tells_them_all():
    now = [0.0]
    lru = LruEvictionStrategy(2)
    ttl = TtlEvictionStrategy(10, clock=lambda: now[0])
    both = CompositeEvictionStrategy(lru, ttl)
    both.on_access("a")
    both.on_access("b")
    now[0] = 20
    assert both.on_access("c") == {"a", "b"}
    both.on_removed("b")
    assert both.strategies == (lru, ttl)
    with pytest.raises(ConfigurationError, match="at least one"):
        CompositeEvictionStrategy()


@pytest.mark.parametrize(
    "strategy",
    [
        NeverEvictStrategy(),
        AlwaysEvictStrategy(),
        LruEvictionStrategy(3),
        TtlEvictionStrategy(1.0),
        CompositeEvictionStrategy(NeverEvictStrategy()),
    ],
    ids=repr,
)
def test_every_strategy_meets_the_protocol(strategy):
    assert isinstance(strategy, EvictionStrategy)
    assert repr(strategy).startswith(type(strategy).__name__)
