"""How long a server asked us to wait: ``retry-after-ms`` or ``retry-after``.

``retry-after`` is seconds or an HTTP date (RFC 9110 §10.2.3); ``retry-after-ms`` is the
millisecond form OpenAI, Anthropic and Azure send beside it. Header names are looked up
in lower case, as httpx's headers and the recorded wire data have them.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Callable, Mapping

__all__ = ["parse_retry_after"]


def parse_retry_after(
    headers: Mapping[str, str], now: Callable[[], float] = time.time
) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date).

    A zero ``retry-after-ms`` (Azure sends it beside ``retry-after: 1``) says nothing; a
    date in the past means no wait; an unreadable value is ignored (``None``). ``now`` is
    the wall clock dates are measured from.
    """
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            ms = float(raw_ms)
        except ValueError:
            ms = 0.0
        if ms > 0 and math.isfinite(ms):
            return ms / 1000.0
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        pass
    else:
        return max(seconds, 0.0) if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - now(), 0.0)
