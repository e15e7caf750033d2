"""An event loop running on a thread of its own, for code that must meet another loop.

:func:`loop_on_a_thread` starts a fresh loop on a daemon thread and hands it over; on the
way out it stops the loop, joins the thread and closes the loop. Work goes to it with
``asyncio.run_coroutine_threadsafe(coroutine, loop)``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["loop_on_a_thread"]


@contextmanager
def loop_on_a_thread() -> Iterator[asyncio.AbstractEventLoop]:
    """A running event loop on its own thread, stopped and closed at the end."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
