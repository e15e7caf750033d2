"""Opening SQLite with vector search: sqlite-vec where an extension can be loaded, else
an exact search in Python — and saying which one is in use.

Loading a SQLite extension needs ``enable_load_extension``, which many Python builds
lack (pyenv's and some distributions' ``sqlite3`` are compiled without it). The backends,
tried in this order for ``backend="auto"``:

* ``sqlite3``: the interpreter's ``sqlite3`` loading sqlite-vec;
* ``sqlean``: the ``sqlean.py`` package (``pip install 'ostinato-retrieval[sqlean]'``), a
  SQLite that can load extensions, loading sqlite-vec;
* ``python``: the interpreter's ``sqlite3`` with the distance computed in Python: exact,
  and fine for small stores (a few thousand chunks), slower past that.

Every backend answers the same SQL (``vec_distance_cosine``), so a store's results do
not depend on it.
"""

from __future__ import annotations

import logging
import math
import sqlite3
import struct
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Literal

from ostinato.errors import ConfigurationError

__all__ = ["BACKENDS", "Backend", "connect", "pack", "python_cosine_distance"]

Backend = Literal["auto", "sqlite3", "sqlean", "python"]
#: The backends a store can be asked for.
BACKENDS: Final[tuple[Backend, ...]] = ("auto", "sqlite3", "sqlean", "python")

_log = logging.getLogger("ostinato.retrieval")


def pack(vector: Sequence[float]) -> bytes:
    """``vector`` as little-endian float32 (sqlite-vec's BLOB form)."""
    return struct.pack(f"<{len(vector)}f", *vector)


def _unpack(blob: bytes) -> array[float]:
    values = array("f")
    values.frombytes(blob)
    return values


def python_cosine_distance(stored: bytes | None, query: bytes | None) -> float | None:
    """``1 - cosine similarity`` of two float32 BLOBs, as sqlite-vec computes it (1.0
    when either vector is all zeros)."""
    if stored is None or query is None:
        return None
    a, b = _unpack(stored), _unpack(query)
    if len(a) != len(b):
        raise ValueError(f"vectors of {len(a)} and {len(b)} dimensions cannot be compared")
    dot = math.fsum(map(float.__mul__, a, b))
    norms = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return 1.0 - dot / norms if norms else 1.0


def _load_vec(connection: Any) -> None:
    import sqlite_vec  # type: ignore[import-untyped]  # ships no type information

    connection.enable_load_extension(True)
    try:
        sqlite_vec.load(connection)
    finally:
        connection.enable_load_extension(False)


def _with_sqlite3(path: str) -> Any:
    connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    if not hasattr(connection, "enable_load_extension"):
        connection.close()
        raise ConfigurationError(
            "this Python's sqlite3 cannot load extensions (it was compiled without "
            "enable_load_extension)\nfix: pip install 'ostinato-retrieval[sqlean]', or use "
            "backend='python' (exact search in Python)"
        )
    try:
        _load_vec(connection)
    except (sqlite3.Error, ImportError, OSError) as exc:
        connection.close()
        raise ConfigurationError(
            f"sqlite3 could not load sqlite-vec ({exc})\nfix: pip install sqlite-vec, "
            "or use backend='python'"
        ) from exc
    return connection


def _with_sqlean(path: str) -> Any:
    try:
        import sqlean  # type: ignore[import-untyped]  # ships no type information
    except ImportError as exc:
        raise ConfigurationError(
            "backend 'sqlean' needs the sqlean.py package, which is not installed\n"
            "fix: pip install 'ostinato-retrieval[sqlean]'"
        ) from exc
    connection = sqlean.connect(path, check_same_thread=False, isolation_level=None)
    try:
        _load_vec(connection)
    except Exception as exc:
        connection.close()
        raise ConfigurationError(f"sqlean.py could not load sqlite-vec ({exc})") from exc
    return connection


def _with_python(path: str) -> Any:
    connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    connection.create_function("vec_distance_cosine", 2, python_cosine_distance, deterministic=True)
    return connection


_OPENERS = {"sqlite3": _with_sqlite3, "sqlean": _with_sqlean, "python": _with_python}
_DESCRIPTIONS = {
    "sqlite3": "sqlite-vec in the interpreter's sqlite3",
    "sqlean": "sqlite-vec in sqlean.py",
    "python": "exact search in Python (no SQLite here can load sqlite-vec)",
}


def connect(path: str | Path, backend: Backend = "auto") -> tuple[Any, str]:
    """A connection to the database at ``path`` answering ``vec_distance_cosine``, and
    the backend in use (``sqlite3``, ``sqlean`` or ``python``), which is logged.

    Raises:
        ConfigurationError: ``backend`` is unknown, or a named backend is not available
            here (the message says what to install).
    """
    if backend not in BACKENDS:
        raise ConfigurationError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    where = str(path)
    if backend != "auto":
        connection = _OPENERS[backend](where)
        _log.info("SQLite vector store %s: %s", where, _DESCRIPTIONS[backend])
        return connection, backend
    reasons = []
    for candidate in ("sqlite3", "sqlean"):
        try:
            connection = _OPENERS[candidate](where)
        except ConfigurationError as exc:
            reasons.append(str(exc).splitlines()[0])
            continue
        _log.info("SQLite vector store %s: %s", where, _DESCRIPTIONS[candidate])
        return connection, candidate
    _log.info("SQLite vector store %s: %s (%s)", where, _DESCRIPTIONS["python"], "; ".join(reasons))
    return _with_python(where), "python"
