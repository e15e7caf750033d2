"""Filter expressions as SQL conditions: the one walk of a filter, for SQL stores.

A SQL vector store keeps each document's metadata as JSON and filters it in its
``WHERE`` clause. :func:`filter_to_sql` walks a :class:`~ostinato.retrieval.Filter`
(``and``, ``or``, ``not``, ``in``, ``nin``, the comparisons) the same way for every
database; a :class:`SqlFilterDialect` writes the parts that differ: the typed equality
and comparison of one key with one value, the test that a key holds a scalar, the
literals of true and false, and how a condition that could be ``NULL`` is made false
(a missing key must make a comparison false, so that ``not`` negates it as
:func:`~ostinato.retrieval.matches` does). Keys and values go to ``parameters``, bound by
the driver; nothing of the expression is pasted into the SQL.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ostinato.retrieval._filter import And, Comparison, Filter, Not, Or, Scalar, value_kind

__all__ = ["SqlFilterDialect", "filter_to_sql"]


class SqlFilterDialect:
    """How one database writes the parts of a filter condition (subclass it).

    Attributes:
        true: the condition that always holds (a missing filter).
        false: the condition that never holds (``in []``, booleans ordered).
    """

    true: ClassVar[str] = "1"
    false: ClassVar[str] = "0"

    def definite(self, condition: str) -> str:
        """``condition`` made false where it would be ``NULL`` (default: as it is)."""
        return condition

    def equal(self, key: str, value: Scalar, parameters: list[Any]) -> str:
        """The metadata value of ``key`` is of ``value``'s kind and equals it (appends
        what it binds to ``parameters``)."""
        raise NotImplementedError

    def compare(self, key: str, op: str, value: Scalar, parameters: list[Any]) -> str:
        """The metadata value of ``key`` is of ``value``'s kind and ``op`` (``!=``, ``<``,
        ``<=``, ``>``, ``>=``) holds; never called for a boolean with an ordering."""
        raise NotImplementedError

    def scalar(self, key: str, parameters: list[Any]) -> str:
        """The metadata holds a number, string or boolean under ``key`` (``nin``'s
        first part: a missing key is in no list, and not out of it either)."""
        raise NotImplementedError


def filter_to_sql(expression: Filter | None, dialect: SqlFilterDialect) -> tuple[str, list[Any]]:
    """The SQL condition of ``expression`` in ``dialect`` and its parameters, in order
    (``dialect.true`` and none for ``None``)."""
    parameters: list[Any] = []
    if expression is None:
        return dialect.true, parameters
    return _sql(expression, dialect, parameters), parameters


def _comparison(node: Comparison, dialect: SqlFilterDialect, parameters: list[Any]) -> str:
    key, value = node.key, node.value
    if isinstance(value, tuple):
        bound: list[Any] = []
        member = " OR ".join(dialect.equal(key, v, bound) for v in value) or dialect.false
        if node.op == "in":
            parameters.extend(bound)
            return dialect.definite(f"({member})")
        scalar = dialect.scalar(key, parameters)
        parameters.extend(bound)
        return dialect.definite(f"({scalar} AND NOT ({member}))")
    if node.op == "==":
        return dialect.definite(dialect.equal(key, value, parameters))
    if value_kind(value) == "bool" and node.op != "!=":
        return dialect.false  # booleans do not order
    return dialect.definite(dialect.compare(key, node.op, value, parameters))


def _sql(node: Filter, dialect: SqlFilterDialect, parameters: list[Any]) -> str:
    if isinstance(node, Comparison):
        return _comparison(node, dialect, parameters)
    if isinstance(node, And):
        left = _sql(node.left, dialect, parameters)
        return f"({left} AND {_sql(node.right, dialect, parameters)})"
    if isinstance(node, Or):
        left = _sql(node.left, dialect, parameters)
        return f"({left} OR {_sql(node.right, dialect, parameters)})"
    assert isinstance(node, Not)
    return f"(NOT {_sql(node.operand, dialect, parameters)})"
