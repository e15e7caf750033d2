"""Filter expressions as SQLite ``WHERE`` clauses over the JSON metadata column.

Each comparison checks the JSON type of the value before comparing (a number never
equals a string, booleans are ``true``/``false`` and do not order) and is wrapped in
``COALESCE(..., 0)``, so a missing key makes it false, never ``NULL``: ``NOT`` then
negates it as :func:`~ostinato.retrieval.matches` does. Keys and values are bound as
parameters; nothing of the expression is pasted into the SQL.
"""

from __future__ import annotations

from typing import Any

from ostinato.retrieval import And, Comparison, Filter, Not, Or, Scalar, value_kind

__all__ = ["where_clause"]

_SQL_TYPES = {"number": "('integer', 'real')", "string": "('text')"}
_ANY_SCALAR = "('integer', 'real', 'text', 'true', 'false')"


def _path(key: str) -> str:
    return '$."' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _equal(column: str, path: str, value: Scalar, parameters: list[Any]) -> str:
    kind = value_kind(value)
    if kind == "bool":
        parameters.append(path)
        return f"json_type({column}, ?) = '{'true' if value else 'false'}'"
    parameters.extend((path, path, value))
    return f"(json_type({column}, ?) IN {_SQL_TYPES[kind or '']} AND json_extract({column}, ?) = ?)"


def _comparison(node: Comparison, column: str, parameters: list[Any]) -> str:
    path = _path(node.key)
    value = node.value
    if isinstance(value, tuple):
        bound: list[Any] = []
        inner = " OR ".join(_equal(column, path, v, bound) for v in value) or "0"
        if node.op == "in":
            parameters.extend(bound)
            return f"COALESCE(({inner}), 0)"
        parameters.append(path)
        parameters.extend(bound)
        return f"COALESCE((json_type({column}, ?) IN {_ANY_SCALAR} AND NOT ({inner})), 0)"
    kind = value_kind(value)
    if node.op == "==":
        return f"COALESCE({_equal(column, path, value, parameters)}, 0)"
    if kind == "bool":
        if node.op != "!=":
            return "0"  # booleans do not order
        parameters.append(path)
        return f"COALESCE(json_type({column}, ?) = '{'false' if value else 'true'}', 0)"
    parameters.extend((path, path, value))
    return (
        f"COALESCE((json_type({column}, ?) IN {_SQL_TYPES[kind or '']} "
        f"AND json_extract({column}, ?) {node.op} ?), 0)"
    )


def where_clause(expression: Filter | None, column: str = "metadata") -> tuple[str, list[Any]]:
    """The SQL condition of ``expression`` over the JSON ``column`` and its parameters
    (``"1"`` for ``None``)."""
    parameters: list[Any] = []
    if expression is None:
        return "1", parameters
    return _sql(expression, column, parameters), parameters


def _sql(node: Filter, column: str, parameters: list[Any]) -> str:
    if isinstance(node, Comparison):
        return _comparison(node, column, parameters)
    if isinstance(node, And):
        return f"({_sql(node.left, column, parameters)} AND {_sql(node.right, column, parameters)})"
    if isinstance(node, Or):
        return f"({_sql(node.left, column, parameters)} OR {_sql(node.right, column, parameters)})"
    assert isinstance(node, Not)
    return f"(NOT {_sql(node.operand, column, parameters)})"
