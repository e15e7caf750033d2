"""The shared loopback replay server, pointed at the server root (``/v1/messages``)."""

from __future__ import annotations

import functools

from tests.fakes.loopback import LoopbackServer as _Server
from tests.fakes.loopback import ReceivedRequest

__all__ = ["LoopbackServer", "ReceivedRequest"]

LoopbackServer = functools.partial(_Server, api_root="")
