"""``GET /`` and ``GET /static/<file>``: the page's files, shipped in the package.

Only plain file names directly in the static folder are served: no listing, no
sub-folders, no ``..``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from starlette.requests import Request
from starlette.responses import FileResponse, Response

from ostinato_serve._problems import ApiError

__all__ = ["PACKAGE_STATIC", "index", "static_file"]

#: The page shipped with the package.
PACKAGE_STATIC: Final = Path(__file__).parent / "static"
_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_HEADERS: Final = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}


def _file(request: Request, name: str) -> Response:
    folder: Path = request.app.state.ostinato_static
    path = folder / name
    if not _NAME.fullmatch(name) or ".." in name or not path.is_file():
        raise ApiError(404, "not_found", f"no file {name!r} here; the page is at /")
    return FileResponse(path, headers=_HEADERS)


async def index(request: Request) -> Response:
    """The page (``static/index.html``)."""
    return _file(request, "index.html")


async def static_file(request: Request) -> Response:
    """One of the page's files."""
    return _file(request, request.path_params["name"])
