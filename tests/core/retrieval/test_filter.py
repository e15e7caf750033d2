"""Filter expressions: the text form parses to the nodes the builder makes, errors say
where, and `matches` (the evaluation in Python) follows the documented semantics."""

from __future__ import annotations

import pytest

from ostinato.retrieval import (
    And,
    Comparison,
    FilterExpressionError,
    Key,
    Not,
    Or,
    as_filter,
    matches,
    parse_filter,
)


@pytest.mark.parametrize(
    ("text", "built"),
    [
        ("genre == 'drama'", Key("genre") == "drama"),
        ('genre == "drama"', Key("genre") == "drama"),
        ("year >= 2020", Key("year") >= 2020),
        ("rating < 4.5", Key("rating") < 4.5),
        ("x != -3", Key("x") != -3),
        ("flag == TRUE", Key("flag") == True),  # noqa: E712 - builds a filter
        ("tag in ['a', 'b']", Key("tag").in_(["a", "b"])),
        ("tag NIN [1, 2]", Key("tag").not_in([1, 2])),
        ("tag not in ['a']", Key("tag").not_in(["a"])),
        ("a == 1 && b == 2 || c == 3", ((Key("a") == 1) & (Key("b") == 2)) | (Key("c") == 3)),
        ("a == 1 AND (b == 2 OR c == 3)", (Key("a") == 1) & ((Key("b") == 2) | (Key("c") == 3))),
        ("NOT a == 1", ~(Key("a") == 1)),
        ("!(a == 1)", ~(Key("a") == 1)),
        ("`odd key` == 'x'", Key("odd key") == "x"),
        ("meta.level == 'x'", Key("meta.level") == "x"),
        ("s == 'it\\'s'", Key("s") == "it's"),
    ],
)
def test_text_parses_to_the_built_expression(text, built):
    assert parse_filter(text) == built


def test_the_text_of_an_expression_parses_back_to_it():
    expression = ((Key("a") == "x'y") & ~Key("b").in_([1, 2.5, True])) | (Key("odd key") <= 3)
    assert parse_filter(str(expression)) == expression


def test_and_binds_tighter_than_or():
    assert parse_filter("a == 1 or b == 2 and c == 3") == Or(
        Comparison("a", "==", 1), And(Comparison("b", "==", 2), Comparison("c", "==", 3))
    )
    assert parse_filter("not not a == 1") == Not(Not(Comparison("a", "==", 1)))


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("genre === 'drama'", "character 9"),
        ("genre == ", "the end where a value"),
        ("genre 'drama'", "no comparison operator after 'genre'"),
        ("(a == 1", "the end where ')'"),
        ("a == 1 b == 2", "'b' after a complete expression"),
        ("a in 'x'", "where '[' was expected"),
        ("a == other", "'other' where a value"),
        ("== 1", "where a metadata key"),
        ("   ", "empty"),
    ],
)
def test_a_bad_text_says_what_and_where(text, where):
    with pytest.raises(FilterExpressionError, match=r"expected|empty") as caught:
        parse_filter(text)
    assert where in str(caught.value)


def test_values_are_checked_when_built():
    with pytest.raises(FilterExpressionError, match="not list"):
        Key("a") == [1]  # noqa: B015 - the comparison is what raises
    with pytest.raises(FilterExpressionError, match="needs a list"):
        Comparison("a", "in", "ab")
    with pytest.raises(FilterExpressionError, match="unknown filter operator"):
        Comparison("a", "~", 1)  # type: ignore[arg-type]
    with pytest.raises(FilterExpressionError, match="combines filter expressions"):
        (Key("a") == 1) & "b == 2"  # type: ignore[operator]
    with pytest.raises(FilterExpressionError, match="a str or a filter node"):
        as_filter(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "metadata", "expected"),
    [
        ("a == 1", {"a": 1.0}, True),
        ("a == 1", {"a": True}, False),  # booleans are not numbers
        ("a == true", {"a": 1}, False),
        ("a < 'b'", {"a": 1}, False),  # kinds differ
        ("a != 1", {}, False),  # a missing key: every comparison is false
        ("a nin [1]", {}, False),
        ("not a == 1", {}, True),
        ("a nin [1]", {"a": "1"}, True),
        ("a > true", {"a": True}, False),  # booleans do not order
        ("a in [1, 'x']", {"a": "x"}, True),
        ("a == 'x'", {"a": None}, False),
        ("a == 'x'", {"a": ["x"]}, False),
    ],
)
def test_reference_evaluation(text, metadata, expected):
    assert matches(parse_filter(text), metadata) is expected
    assert matches(None, metadata) is True
