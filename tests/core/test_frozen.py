"""FrozenDict: a dict that refuses mutation, hashes consistently and pickles as itself."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from ostinato._frozen import EMPTY, FrozenDict, freeze


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.__setitem__("a", 2),
        lambda d: d.__delitem__("a"),
        lambda d: d.clear(),
        lambda d: d.pop("a"),
        lambda d: d.popitem(),
        lambda d: d.setdefault("b", 1),
        lambda d: d.update(b=1),
        lambda d: d.__ior__({"b": 1}),
    ],
    ids=["setitem", "delitem", "clear", "pop", "popitem", "setdefault", "update", "ior"],
)
def test_every_mutation_is_refused(mutate):
    d = FrozenDict({"a": 1})
    with pytest.raises(TypeError, match="FrozenDict is read-only"):
        mutate(d)
    assert d == {"a": 1}


def test_in_place_or_operator_is_refused():
    d = FrozenDict({"a": 1})
    with pytest.raises(TypeError, match="read-only"):
        d |= {"b": 2}
    assert d == {"a": 1}


def test_is_a_dict_equal_to_mappings_with_the_same_items():
    d = FrozenDict({"a": 1, "b": [2]})
    assert isinstance(d, dict)
    assert d == {"b": [2], "a": 1}
    assert json.loads(json.dumps(d)) == d
    assert repr(d) == "{'a': 1, 'b': [2]}"


def test_equal_mappings_hash_equal_whatever_their_order():
    assert hash(FrozenDict({"a": 1, "b": 2})) == hash(FrozenDict({"b": 2, "a": 1}))
    # unhashable values: the keys decide, still regardless of insertion order
    left = FrozenDict({"a": [1], "b": {"x": 1}})
    right = FrozenDict({"b": {"x": 1}, "a": [1]})
    assert left == right
    assert hash(left) == hash(right)
    assert len({left, right}) == 1


def test_pickle_and_copies_keep_the_type():
    d = FrozenDict({"a": [1]})
    for clone in (pickle.loads(pickle.dumps(d)), copy.copy(d), copy.deepcopy(d)):
        assert type(clone) is FrozenDict
        assert clone == d
    assert copy.deepcopy(d)["a"] is not d["a"]


def test_fromkeys_builds_a_frozen_dict():
    d = FrozenDict.fromkeys(["a", "b"], 0)
    assert type(d) is FrozenDict
    assert d == {"a": 0, "b": 0}


def test_merged_lays_the_other_entries_over_these():
    d = FrozenDict({"a": 1, "b": 2})
    merged = d.merged({"b": 3, "c": 4})
    assert type(merged) is FrozenDict
    assert merged == {"a": 1, "b": 3, "c": 4}
    assert d == {"a": 1, "b": 2}
    assert d.merged([("a", 0)]) == {"a": 0, "b": 2}


def test_freeze():
    assert freeze(None) is EMPTY
    d = FrozenDict({"a": 1})
    assert freeze(d) is d
    source = {"a": 1}
    frozen = freeze(source)
    assert type(frozen) is FrozenDict
    source["a"] = 2  # a copy, not a view
    assert frozen == {"a": 1}
    assert EMPTY == {}
