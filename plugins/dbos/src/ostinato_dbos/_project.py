"""The project a worker or submitter belongs to, and where that project's durable state
lives.

Durable turns are kept per project, so that the worker of one project never takes the
turns of another (whose tools it cannot resolve). The project is found from the working
directory: the nearest directory, going up, that holds ``pyproject.toml`` or ``.git``
(else the working directory itself). Its *name* (the directory's name, lower-cased, or
``OSTINATO_DBOS_PROJECT``) names the queue and the workers; its *state directory* holds
the SQLite system database and the workers' identity locks. This module reads the file
system only; it imports nothing heavy.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Final

__all__ = [
    "PROJECT_MARKERS",
    "default_queue",
    "default_state_dir",
    "project_directory",
    "project_name",
    "state_home",
]

#: What marks a directory as a project's root.
PROJECT_MARKERS: Final = ("pyproject.toml", ".git")
_UNSAFE: Final = re.compile(r"[^a-z0-9._-]+")
#: The longest project name derived from a directory (ids and queue names stay short).
_MAX_NAME: Final = 48


def project_directory(start: Path | None = None) -> Path:
    """The nearest directory from ``start`` (default: the working directory) up that
    holds ``pyproject.toml`` or ``.git``; ``start`` itself when none does."""
    here = (start if start is not None else Path.cwd()).absolute()
    for directory in (here, *here.parents):
        if any((directory / marker).exists() for marker in PROJECT_MARKERS):
            return directory
    return here


def project_name(directory: Path) -> str:
    """The name of the project at ``directory``: its last part, lower-cased, with runs of
    characters other than letters, digits, ``.``, ``_`` and ``-`` made one ``-``, cut to
    48 characters, without leading or trailing punctuation (``project`` when nothing
    is left, as for the file system's root)."""
    name = _UNSAFE.sub("-", directory.name.lower())[:_MAX_NAME].strip("-._")
    return name or "project"


def state_home() -> Path:
    """``$XDG_STATE_HOME/ostinato``, else ``~/.local/state/ostinato``."""
    base = os.environ.get("XDG_STATE_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return root / "ostinato"


def default_state_dir(project: str, directory: Path | None = None) -> Path:
    """Where the project's durable state lives: ``<state home>/dbos/<project>`` for a
    project named in the settings (every directory naming it shares it), and
    ``<state home>/dbos/<project>-<hash of directory>`` for one found from ``directory``
    (two checkouts of the same name on one machine stay apart)."""
    if directory is None:
        return state_home() / "dbos" / project
    digest = hashlib.sha256(str(directory).encode("utf-8", "surrogateescape")).hexdigest()
    return state_home() / "dbos" / f"{project}-{digest[:8]}"


def default_queue(project: str) -> str:
    """The queue of the project's turns: ``ostinato-turns-<project>``."""
    return f"ostinato-turns-{project}"
