"""Filter expressions as SQLite ``WHERE`` clauses over the JSON metadata column.

The walk of the filter is core's (:func:`ostinato.retrieval.filter_to_sql`); this is
SQLite's dialect of it. Each comparison checks the JSON type of the value before
comparing (a number never equals a string, booleans are ``true``/``false`` and do not
order) and is wrapped in ``COALESCE(..., 0)``, so a missing key makes it false, never
``NULL``: ``NOT`` then negates it as :func:`~ostinato.retrieval.matches` does.
"""

from __future__ import annotations

from typing import Any

from ostinato.retrieval import Filter, Scalar, SqlFilterDialect, filter_to_sql, value_kind

__all__ = ["SQLiteFilterDialect", "where_clause"]

_SQL_TYPES = {"number": "('integer', 'real')", "string": "('text')"}
_ANY_SCALAR = "('integer', 'real', 'text', 'true', 'false')"


def _path(key: str) -> str:
    return '$."' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


class SQLiteFilterDialect(SqlFilterDialect):
    """SQLite's JSON functions over the JSON text ``column``."""

    def __init__(self, column: str = "metadata") -> None:
        self.column = column

    def definite(self, condition: str) -> str:
        """``COALESCE(condition, 0)``."""
        return f"COALESCE({condition}, 0)"

    def equal(self, key: str, value: Scalar, parameters: list[Any]) -> str:
        """Same JSON type, same value."""
        column, path = self.column, _path(key)
        if value_kind(value) == "bool":
            parameters.append(path)
            return f"json_type({column}, ?) = '{'true' if value else 'false'}'"
        parameters.extend((path, path, value))
        kinds = _SQL_TYPES[value_kind(value) or ""]
        return f"(json_type({column}, ?) IN {kinds} AND json_extract({column}, ?) = ?)"

    def compare(self, key: str, op: str, value: Scalar, parameters: list[Any]) -> str:
        """Same JSON type, and ``op`` holds (a boolean: only ``!=``)."""
        column, path = self.column, _path(key)
        if value_kind(value) == "bool":
            parameters.append(path)
            return f"json_type({column}, ?) = '{'false' if value else 'true'}'"
        parameters.extend((path, path, value))
        kinds = _SQL_TYPES[value_kind(value) or ""]
        return f"(json_type({column}, ?) IN {kinds} AND json_extract({column}, ?) {op} ?)"

    def scalar(self, key: str, parameters: list[Any]) -> str:
        """A number, a string, ``true`` or ``false`` under ``key``."""
        parameters.append(_path(key))
        return f"json_type({self.column}, ?) IN {_ANY_SCALAR}"


def where_clause(expression: Filter | None, column: str = "metadata") -> tuple[str, list[Any]]:
    """The SQL condition of ``expression`` over the JSON ``column`` and its parameters
    (``"1"`` for ``None``)."""
    return filter_to_sql(expression, SQLiteFilterDialect(column))
