"""Serving turns on a durable engine (``OSTINATO_SERVE_TURNS=durable``)."""

from __future__ import annotations

__all__ = ["DurableTurns"]


class DurableTurns:
    """The served API's turns on a durable engine."""
