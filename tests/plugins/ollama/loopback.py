"""The shared loopback replay server, with NDJSON streams at the server root (``/api/chat``)."""

from __future__ import annotations

import functools

from tests.fakes.loopback import LoopbackServer as _Server
from tests.fakes.loopback import ReceivedRequest, ndjson_lines

__all__ = ["LoopbackServer", "ReceivedRequest"]

LoopbackServer = functools.partial(_Server, api_root="", frames=ndjson_lines)
