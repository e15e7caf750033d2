"""Filter expressions as PostgreSQL conditions over the ``jsonb`` metadata column.

Each comparison is a ``CASE`` on the JSON type of the value first (a number never equals
a string, booleans are equal or not and do not order), so a missing key or a value of
another kind makes it false, never ``NULL``: ``NOT`` then negates it as
:func:`~ostinato.retrieval.matches` does. Numbers compare as ``numeric`` (``1 == 1.0``),
strings by code point (``COLLATE "C"``). Keys and values are bound as parameters; nothing
of the expression is pasted into the SQL.
"""

from __future__ import annotations

from typing import Any

from ostinato.retrieval import And, Comparison, Filter, Not, Or, Scalar, value_kind

__all__ = ["where_clause"]

_JSON_TYPES = {"number": "number", "string": "string", "bool": "boolean"}


def _typed(column: str, kind: str, op: str, parameters: list[Any], key: str, value: Any) -> str:
    parameters.extend((key, key, value))
    if kind == "number":
        read, cast = f"({column} ->> %s)::numeric", "%s::numeric"
    elif kind == "string":
        read, cast = f'({column} ->> %s) COLLATE "C"', "%s::text"
    else:
        read, cast = f"({column} ->> %s)::boolean", "%s::boolean"
    return (
        f"(CASE WHEN jsonb_typeof({column} -> %s) = '{_JSON_TYPES[kind]}' "
        f"THEN {read} {op} {cast} ELSE false END)"
    )


def _comparison(node: Comparison, column: str, parameters: list[Any]) -> str:
    value = node.value
    if isinstance(value, tuple):
        bound: list[Any] = []
        inner = [_typed(column, value_kind(v) or "", "=", bound, node.key, v) for v in value]
        member = " OR ".join(inner) or "false"
        if node.op == "in":
            parameters.extend(bound)
            return f"({member})"
        parameters.append(node.key)
        parameters.extend(bound)
        return (
            f"(jsonb_typeof({column} -> %s) IN ('number', 'string', 'boolean') AND NOT ({member}))"
        )
    kind = value_kind(value) or ""
    if kind == "bool" and node.op not in ("==", "!="):
        return "false"  # booleans do not order
    op = "<>" if node.op == "!=" else "=" if node.op == "==" else node.op
    scalar: Scalar = value
    return _typed(column, kind, op, parameters, node.key, scalar)


def where_clause(expression: Filter | None, column: str = "metadata") -> tuple[str, list[Any]]:
    """The SQL condition of ``expression`` over the ``jsonb`` ``column`` and its
    parameters (``"true"`` for ``None``)."""
    parameters: list[Any] = []
    if expression is None:
        return "true", parameters
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
