"""Portable metadata filters: one expression every vector store applies the same way.

The language is Spring AI's: comparisons ``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``,
membership ``in`` / ``nin`` and the logic ``and``, ``or``, ``not``. Build one in Python::

    from ostinato.retrieval import Key

    expression = (Key("genre") == "drama") & (Key("year") >= 2020)
    expression = Key("genre").in_(["comedy", "drama"]) | ~(Key("draft") == True)

or write it as text (:func:`~ostinato.retrieval.parse_filter`)::

    "genre == 'drama' && year >= 2020"
    "genre in ['comedy', 'drama'] OR NOT draft == true"

Semantics every store follows (and the conformance kit checks): a comparison on a key the
metadata lacks is false (``!=`` and ``nin`` included), and so is one between values of
different kinds (a number and a string; booleans are not numbers); numbers compare by
value (``1 == 1.0``), strings by code point. ``not`` negates a whole comparison, so
``not year > 2000`` is true for a document without a year.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from ostinato.retrieval._errors import FilterExpressionError

__all__ = [
    "COMPARISONS",
    "And",
    "Comparison",
    "Filter",
    "Key",
    "Not",
    "Or",
    "Scalar",
    "matches",
    "value_kind",
]

#: The values metadata may be compared with.
Scalar: TypeAlias = str | int | float | bool
ComparisonOp = Literal["==", "!=", "<", "<=", ">", ">=", "in", "nin"]
#: Every comparison operator.
COMPARISONS: Final[tuple[ComparisonOp, ...]] = ("==", "!=", "<", "<=", ">", ">=", "in", "nin")


def value_kind(value: object) -> str | None:
    """``"bool"``, ``"number"`` or ``"string"`` for a value a filter can compare, else
    ``None``."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return None


class _Node:
    """What every filter node has: ``&``, ``|`` and ``~``."""

    __slots__ = ()

    def __and__(self, other: Filter) -> And:
        return And(_checked(self), _checked(other))

    def __or__(self, other: Filter) -> Or:
        return Or(_checked(self), _checked(other))

    def __invert__(self) -> Not:
        return Not(_checked(self))


def _checked(node: object) -> Filter:
    if not isinstance(node, Comparison | And | Or | Not):
        raise FilterExpressionError(
            f"a filter combines filter expressions, got {type(node).__name__} {node!r}\n"
            "fix: compare keys first, e.g. (Key('a') == 1) & (Key('b') == 2)"
        )
    return node


@dataclass(frozen=True, slots=True)
class Comparison(_Node):
    """``key op value``; for ``in`` and ``nin`` the value is a tuple of scalars."""

    key: str
    op: ComparisonOp
    value: Scalar | tuple[Scalar, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key:
            raise FilterExpressionError(f"a filter key must be a non-empty str, got {self.key!r}")
        if self.op not in COMPARISONS:
            raise FilterExpressionError(
                f"unknown filter operator {self.op!r}; expected one of {', '.join(COMPARISONS)}"
            )
        if self.op in ("in", "nin"):
            if isinstance(self.value, str) or not isinstance(self.value, Iterable):
                raise FilterExpressionError(
                    f"{self.key} {self.op} needs a list of values, got {self.value!r}"
                )
            values = tuple(self.value)
            object.__setattr__(self, "value", values)
            for item in values:
                _check_scalar(self.key, self.op, item)
        else:
            _check_scalar(self.key, self.op, self.value)

    def __str__(self) -> str:
        if isinstance(self.value, tuple):
            inner = ", ".join(_literal(v) for v in self.value)
            return f"{_key_text(self.key)} {self.op} [{inner}]"
        return f"{_key_text(self.key)} {self.op} {_literal(self.value)}"


def _check_scalar(key: str, op: str, value: object) -> None:
    if value_kind(value) is None:
        raise FilterExpressionError(
            f"{key} {op} {value!r}: a filter compares strings, numbers and booleans, "
            f"not {type(value).__name__}"
        )


@dataclass(frozen=True, slots=True)
class And(_Node):
    """Both sides hold."""

    left: Filter
    right: Filter

    def __str__(self) -> str:
        return f"({self.left} and {self.right})"


@dataclass(frozen=True, slots=True)
class Or(_Node):
    """Either side holds."""

    left: Filter
    right: Filter

    def __str__(self) -> str:
        return f"({self.left} or {self.right})"


@dataclass(frozen=True, slots=True)
class Not(_Node):
    """The operand does not hold."""

    operand: Filter

    def __str__(self) -> str:
        return f"not {self.operand}"


#: A filter expression: a comparison or a logical combination of them.
Filter: TypeAlias = Comparison | And | Or | Not


class Key:
    """A metadata key, to build comparisons with Python's operators:
    ``Key("year") >= 2020``, ``Key("genre").in_(["a", "b"])``."""

    __slots__ = ("name",)
    __hash__ = None  # type: ignore[assignment]  # == builds a comparison

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, value: object) -> Comparison:  # type: ignore[override]
        return Comparison(self.name, "==", value)  # type: ignore[arg-type]  # checked there

    def __ne__(self, value: object) -> Comparison:  # type: ignore[override]
        return Comparison(self.name, "!=", value)  # type: ignore[arg-type]

    def __lt__(self, value: Scalar) -> Comparison:
        return Comparison(self.name, "<", value)

    def __le__(self, value: Scalar) -> Comparison:
        return Comparison(self.name, "<=", value)

    def __gt__(self, value: Scalar) -> Comparison:
        return Comparison(self.name, ">", value)

    def __ge__(self, value: Scalar) -> Comparison:
        return Comparison(self.name, ">=", value)

    def in_(self, values: Iterable[Scalar]) -> Comparison:
        """``key in [values]``."""
        return Comparison(self.name, "in", tuple(values))

    def not_in(self, values: Iterable[Scalar]) -> Comparison:
        """``key nin [values]``."""
        return Comparison(self.name, "nin", tuple(values))

    def __repr__(self) -> str:
        return f"Key({self.name!r})"


def _literal(value: Scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(value)


def _key_text(key: str) -> str:
    if key.replace("_", "a").replace(".", "a").isalnum() and not key[0].isdigit():
        return key
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _equal(found: object, value: Scalar) -> bool:
    kind = value_kind(found)
    return kind is not None and kind == value_kind(value) and found == value


def _compare(found: object, op: str, value: Scalar | tuple[Scalar, ...]) -> bool:
    if op == "in" or op == "nin":
        assert isinstance(value, tuple)
        if value_kind(found) is None:
            return False
        member = any(_equal(found, v) for v in value)
        return member if op == "in" else not member
    assert not isinstance(value, tuple)
    kind = value_kind(found)
    if kind is None or kind != value_kind(value):
        return False
    if op == "==":
        return found == value
    if op == "!=":
        return found != value
    if kind == "bool":
        return False  # booleans are equal or not; they do not order
    left: Any = found
    if op == "<":
        return bool(left < value)
    if op == "<=":
        return bool(left <= value)
    if op == ">":
        return bool(left > value)
    return bool(left >= value)


def matches(expression: Filter | None, metadata: Mapping[str, Any]) -> bool:
    """Whether ``metadata`` satisfies ``expression`` (``None``: every document does)."""
    if expression is None:
        return True
    if isinstance(expression, Comparison):
        if expression.key not in metadata:
            return False
        return _compare(metadata[expression.key], expression.op, expression.value)
    if isinstance(expression, And):
        return matches(expression.left, metadata) and matches(expression.right, metadata)
    if isinstance(expression, Or):
        return matches(expression.left, metadata) or matches(expression.right, metadata)
    return not matches(expression.operand, metadata)
