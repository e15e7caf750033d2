"""A bound on how long the server may take to answer on one connection.

A server that stops answering (stopped, frozen, cut off behind a firewall that drops
packets) leaves a query waiting forever: TCP keeps an idle socket open and the kernel
on the far side may still acknowledge what is sent. :func:`answer_within` shuts the
connection's socket down when the bound passes, so the waiting read sees the end of the
stream at once and psycopg raises ``OperationalError``; the connection is then broken
and the pool replaces it. Shutting the socket down (rather than cancelling the task)
keeps psycopg from spending its own cancellation time on a server that does not answer.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from psycopg import AsyncConnection, OperationalError

__all__ = ["AnswerDeadline", "answer_within"]


class AnswerDeadline:
    """Whether the bound of one :func:`answer_within` block passed (and the socket was
    shut down)."""

    __slots__ = ("expired",)

    def __init__(self) -> None:
        self.expired = False


@contextmanager
def answer_within(connection: AsyncConnection[Any], seconds: float) -> Iterator[AnswerDeadline]:
    """Shut ``connection``'s socket down if the block still runs after ``seconds``."""
    deadline = AnswerDeadline()
    fd = connection.pgconn.socket

    def expire() -> None:
        # Runs on the loop that owns the connection: if the connection is still open,
        # its descriptor is still ``fd`` (never one reused by someone else).
        try:
            if connection.closed or connection.pgconn.socket != fd:
                return
        except OperationalError:  # the connection broke meanwhile: nothing to shut down
            return
        deadline.expired = True
        with socket.socket(fileno=os.dup(fd)) as duplicate:
            duplicate.shutdown(socket.SHUT_RDWR)

    handle = asyncio.get_running_loop().call_later(seconds, expire)
    try:
        yield deadline
    finally:
        handle.cancel()
