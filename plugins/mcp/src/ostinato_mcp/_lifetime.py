"""A stdio server never outlives the process that started it, even when that process is
killed and no cleanup runs.

Closing its input is what asks a stdio server to stop, and a server whose work is stuck in
a thread may not stop. So on Linux the server is started through a tiny launcher that
asks the kernel to kill it when its parent ends (``PR_SET_PDEATHSIG``), then becomes the
server (``exec``): no process stays in between. Elsewhere the command runs as it is.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from typing import Final

__all__ = ["LAUNCHER", "guarded_command"]

#: The launcher: ``python -S -c LAUNCHER PARENT_PID COMMAND ARGS...``. The parent check
#: after ``prctl`` covers a parent that died before the request was made.
LAUNCHER: Final = (
    "import ctypes,os,signal,sys\n"
    "ctypes.CDLL(None).prctl(1, signal.SIGKILL)\n"
    "if os.getppid() != int(sys.argv[1]): os._exit(1)\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)


def guarded_command(
    command: str, args: Sequence[str], path: str | None = None
) -> tuple[str, list[str]]:
    """The command line that starts ``command args`` tied to this process's life.

    Raises:
        FileNotFoundError: ``command`` is not an executable on ``path`` (default:
            ``PATH``), so the error names it rather than the launcher.
    """
    if not sys.platform.startswith("linux"):
        return command, list(args)
    executable = shutil.which(command, path=path)
    if executable is None:
        raise FileNotFoundError(f"no executable {command!r} (searched PATH)")
    return sys.executable, ["-S", "-c", LAUNCHER, str(os.getpid()), executable, *args]
