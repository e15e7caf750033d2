"""Filter expressions as PostgreSQL conditions over the ``jsonb`` metadata column.

The walk of the filter is core's (:func:`ostinato.retrieval.filter_to_sql`); this is
PostgreSQL's dialect of it. Each comparison is a ``CASE`` on the JSON type of the value
first (a number never equals a string, booleans are equal or not and do not order), so
a missing key or a value of another kind makes it false, never ``NULL``: ``NOT`` then
negates it as :func:`~ostinato.retrieval.matches` does. Numbers compare as ``numeric``
(``1 == 1.0``), strings by code point (``COLLATE "C"``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from ostinato.retrieval import Filter, Scalar, SqlFilterDialect, filter_to_sql, value_kind

__all__ = ["PostgresFilterDialect", "where_clause"]

_JSON_TYPES = {"number": "number", "string": "string", "bool": "boolean"}


class PostgresFilterDialect(SqlFilterDialect):
    """PostgreSQL's ``jsonb`` operators over ``column``."""

    true: ClassVar[str] = "true"
    false: ClassVar[str] = "false"

    def __init__(self, column: str = "metadata") -> None:
        self.column = column

    def equal(self, key: str, value: Scalar, parameters: list[Any]) -> str:
        """Same JSON type, same value."""
        return self.compare(key, "==", value, parameters)

    def compare(self, key: str, op: str, value: Scalar, parameters: list[Any]) -> str:
        """Same JSON type, and ``op`` holds."""
        kind, column = value_kind(value) or "", self.column
        op = "<>" if op == "!=" else "=" if op == "==" else op
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

    def scalar(self, key: str, parameters: list[Any]) -> str:
        """A number, a string or a boolean under ``key``."""
        parameters.append(key)
        return f"jsonb_typeof({self.column} -> %s) IN ('number', 'string', 'boolean')"


def where_clause(expression: Filter | None, column: str = "metadata") -> tuple[str, list[Any]]:
    """The SQL condition of ``expression`` over the ``jsonb`` ``column`` and its
    parameters (``"true"`` for ``None``)."""
    return filter_to_sql(expression, PostgresFilterDialect(column))
