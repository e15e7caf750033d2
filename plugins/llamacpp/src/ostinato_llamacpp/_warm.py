"""A warm server: one ``llama-server`` that outlives ``ostinato chat`` runs, until idle.

Every ``ostinato chat`` otherwise starts its own server (seconds to load the model) and
reads the whole prompt, system and tool definitions included, from scratch.
``ostinato local serve`` starts the server that ``llamacpp:default`` would start, records
it in the cache's ``warm.json`` (its pid, port and the command it runs), and stops it
after ``idle`` seconds without a request. A model built while it runs, for the same
command line, talks to it instead of starting a server, so the model is loaded already,
and llama-server's prompt cache (``cache_prompt``, on by default) skips the prompt prefix
it has seen: the fixed system and tool part of each turn.

Activity is read from the server's ``/metrics`` counters (tokens read and generated),
polled every few seconds. The server runs behind the guard like any other: it stops when
``ostinato local serve`` ends, however it ends.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import signal
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Final

from ostinato_llamacpp._artifacts import CacheLayout
from ostinato_llamacpp._server import LlamaServer, ServerSpec

__all__ = ["find_warm_server", "serve_warm", "spec_key", "warm_record_path"]

_NO_PROXY: Final = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_COUNTERS: Final = (
    "prompt_tokens_total",
    "prompt_tokens_cached_total",
    "tokens_predicted_total",
    "n_decode_total",
    "requests_processing",
)


def warm_record_path(layout: CacheLayout) -> Path:
    """``warm.json`` in the cache: the warm server, while one runs."""
    return layout.root / "warm.json"


def spec_key(spec: ServerSpec) -> str:
    """What identifies a server's configuration: its command line, port aside."""
    return hashlib.sha256(json.dumps(spec.command(0)).encode()).hexdigest()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _get(url: str, timeout: float = 2.0) -> str | None:
    try:
        with _NO_PROXY.open(url, timeout=timeout) as reply:
            return reply.read().decode("utf-8", "replace") if reply.status == 200 else None
    except (urllib.error.URLError, OSError):
        return None


def find_warm_server(layout: CacheLayout, spec: ServerSpec) -> str | None:
    """The URL of a running warm server for ``spec`` (``None``: none, or another spec)."""
    try:
        record = json.loads(warm_record_path(layout).read_text())
        pid, port, key = int(record["pid"]), int(record["port"]), str(record["key"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if key != spec_key(spec) or not _alive(pid):
        return None
    url = f"http://127.0.0.1:{port}"
    return url if _get(f"{url}/health") is not None else None


def _activity(base_url: str) -> tuple[float, ...] | None:
    """The server's activity counters, or ``None`` if it does not answer."""
    text = _get(f"{base_url}/metrics")
    if text is None:
        return None
    values: dict[str, float] = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        short = name.split(":", 1)[-1]
        if short in _COUNTERS:
            with contextlib.suppress(ValueError):
                values[short] = float(value)
    return tuple(values.get(name, 0.0) for name in _COUNTERS)


def serve_warm(
    spec: ServerSpec,
    layout: CacheLayout,
    *,
    idle: float,
    startup_timeout: float = 120.0,
    poll: float = 2.0,
    on_ready: Callable[[str], None] | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Run ``spec``'s server, recorded in ``warm.json``, until ``idle`` seconds pass
    without a request (or ``stop`` is set, or SIGTERM/SIGINT arrive in the main thread).

    Raises:
        LlamaServerStartError: the server did not start.
    """
    stop = stop or threading.Event()
    warm_spec = dataclasses.replace(spec, extra_args=(*spec.extra_args, "--metrics"))
    server = LlamaServer(warm_spec, startup_timeout=startup_timeout, log_dir=layout.logs)
    record = warm_record_path(layout)
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            previous[signum] = signal.signal(signum, lambda *_: stop.set())
    try:
        server.start()
        record.parent.mkdir(parents=True, exist_ok=True)
        staging = record.with_name(record.name + ".partial")
        content = {"pid": os.getpid(), "port": server.port, "key": spec_key(spec)}
        staging.write_text(json.dumps(content) + "\n")
        staging.replace(record)
        if on_ready is not None:
            on_ready(server.base_url)
        last = _activity(server.base_url)
        quiet_since = time.monotonic()
        while not stop.wait(poll) and server.running:
            now = _activity(server.base_url)
            if now != last or (now is not None and now[-1] > 0):  # counted, or busy now
                last, quiet_since = now, time.monotonic()
            elif time.monotonic() - quiet_since >= idle:
                break
    finally:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            if json.loads(record.read_text()).get("pid") == os.getpid():
                record.unlink()
        server.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
