"""A stdio server never outlives the process that started it, even when that process is
killed and no cleanup runs.

Closing its input is what asks a stdio server to stop, and a server whose work is stuck in
a thread may not stop. So on Linux the server is started through a tiny launcher that
asks the kernel to kill it when its parent ends (``PR_SET_PDEATHSIG``), then becomes the
server (``exec``): no process stays in between. Elsewhere the command runs as it is.

A command is looked up on ``PATH``, then in the running Python's scripts directory, so a
server installed in the virtual environment ostinato runs from starts without that
environment being activated.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from collections.abc import Sequence
from typing import Final

__all__ = ["LAUNCHER", "find_executable", "guarded_command"]

#: The launcher: ``python -S -c LAUNCHER PARENT_PID COMMAND ARGS...``. The parent check
#: after ``prctl`` covers a parent that died before the request was made.
LAUNCHER: Final = (
    "import ctypes,os,signal,sys\n"
    "ctypes.CDLL(None).prctl(1, signal.SIGKILL)\n"
    "if os.getppid() != int(sys.argv[1]): os._exit(1)\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)


def _scripts_directories() -> list[str]:
    """Where this Python's console scripts are installed (a virtual environment's ``bin``)."""
    found = [sysconfig.get_path("scripts"), os.path.dirname(sys.executable)]
    return list(dict.fromkeys(d for d in found if d))


def find_executable(command: str, path: str | None = None) -> str:
    """The executable ``command`` names: on ``path`` (default: ``PATH``), else in this
    Python's scripts directory.

    Raises:
        FileNotFoundError: neither has it; the message says where it looked and what to do.
    """
    executable = shutil.which(command, path=path)
    if executable is None and os.path.basename(command) == command:
        scripts = os.pathsep.join(_scripts_directories())
        executable = shutil.which(command, path=scripts)
    if executable is not None:
        return executable
    if os.path.basename(command) != command:
        raise FileNotFoundError(
            f"no executable {command!r}\n"
            f'fix: correct the server\'s "command" (the file does not exist or cannot run)'
        )
    raise FileNotFoundError(
        f"no executable {command!r} on PATH nor in this Python's scripts directory "
        f"({', '.join(_scripts_directories())})\n"
        f"fix: activate the virtual environment that has {command!r} (source "
        f'.venv/bin/activate), or give its absolute path as the server\'s "command"'
    )


def guarded_command(
    command: str, args: Sequence[str], path: str | None = None
) -> tuple[str, list[str]]:
    """The command line that starts ``command args`` tied to this process's life
    (``command`` found by :func:`find_executable`).

    Raises:
        FileNotFoundError: ``command`` is not an executable there, so the error names it
            rather than the launcher.
    """
    executable = find_executable(command, path)
    if not sys.platform.startswith("linux"):
        return executable, list(args)
    return sys.executable, ["-S", "-c", LAUNCHER, str(os.getpid()), executable, *args]
