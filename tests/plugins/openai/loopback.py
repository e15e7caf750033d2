"""The shared loopback replay server, pointed at the OpenAI API root (``/v1``)."""

from __future__ import annotations

from tests.fakes.loopback import LoopbackServer, ReceivedRequest

__all__ = ["LoopbackServer", "ReceivedRequest"]
