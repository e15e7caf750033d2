"""The probe: proof that a ``llama-server`` runs on this machine before setup chooses it.

A binary that starts is not yet a binary that works: a build for the wrong CPU dies with
SIGILL on its first vector instruction, and a kernel that miscomputes (ggml's AMX matrix
kernels, on some CPUs) dies with SIGSEGV only while the model warms up. So the probe
does what a chat turn does, within a time limit: start the server on the model (behind
the guard, like any server), wait for ``/health``, ask for one short completion, stop it.
A failure says why, naming the signal when one ended the server.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from ostinato_llamacpp._errors import LlamaServerStartError, exit_signal
from ostinato_llamacpp._server import LlamaServer, ServerSpec

__all__ = ["ProbeResult", "probe_server"]

_NO_PROXY: Final = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_QUESTION: Final = "Reply with the single word: ready"
_SERVER_NAMED: Final = re.compile(r"^llamacpp: llama-server \([^)]*\) ")


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """How a probe went.

    Attributes:
        ok: the server started, loaded the model and answered a completion in time.
        detail: what happened, in words (the failure, or the answer's first characters).
        signal: the signal that ended the server (``"SIGILL"``), if one did.
        exit_code: the server's exit status, if it exited.
        health_seconds: from start to ``/health`` answering 200.
        completion_seconds: how long the completion took.
    """

    ok: bool
    detail: str
    signal: str | None = None
    exit_code: int | None = None
    health_seconds: float | None = None
    completion_seconds: float | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (see :meth:`from_json`)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProbeResult:
        """The result :meth:`to_json` wrote."""

        def number(key: str) -> float | None:
            value = data.get(key)
            return float(value) if isinstance(value, int | float) else None

        code = data.get("exit_code")
        return cls(
            ok=bool(data.get("ok")),
            detail=str(data.get("detail", "")),
            signal=str(data["signal"]) if data.get("signal") else None,
            exit_code=code if isinstance(code, int) else None,
            health_seconds=number("health_seconds"),
            completion_seconds=number("completion_seconds"),
        )

    def describe(self) -> str:
        """One line: ``passed: healthy in 3.1 s, answered in 1.2 s`` or the failure."""
        if self.ok:
            return (
                f"passed: healthy in {self.health_seconds or 0:.1f} s, answered in "
                f"{self.completion_seconds or 0:.1f} s"
            )
        killed = f" (killed by {self.signal})" if self.signal else ""
        return f"failed: {self.detail}{'' if killed in self.detail else killed}"


def _complete(base_url: str, timeout: float) -> str:
    body = {
        "messages": [{"role": "user", "content": _QUESTION}],
        "max_tokens": 8,
        "temperature": 0,
    }
    request = urllib.request.Request(
        f"{base_url}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with _NO_PROXY.open(request, timeout=timeout) as response:
        reply = json.loads(response.read())
    message = reply["choices"][0]["message"]
    text = message.get("content") or json.dumps(message.get("tool_calls"))
    if not isinstance(text, str):
        raise ValueError(f"the completion has no text: {reply!r}")
    return text


def probe_server(spec: ServerSpec, *, timeout: float, log_dir: Path | None = None) -> ProbeResult:
    """Start ``spec``'s server, wait for ``/health``, ask one completion, stop it; all
    within ``timeout`` seconds. Never raises for the server's failures: they are the
    result."""
    started = time.monotonic()
    server = LlamaServer(spec, startup_timeout=timeout, log_dir=log_dir)
    try:
        try:
            server.start()
        except LlamaServerStartError as exc:
            first = str(exc).splitlines()[0]
            where = f"; log: {exc.log_path}" if exc.log_path else ""
            return ProbeResult(
                ok=False,
                detail=_SERVER_NAMED.sub("llama-server ", first, count=1) + where,
                signal=exit_signal(exc.exit_code),
                exit_code=exc.exit_code,
            )
        healthy = time.monotonic() - started
        asked = time.monotonic()
        try:
            text = _complete(server.base_url, max(timeout - healthy, 1.0))
        except (OSError, ValueError, KeyError, IndexError) as exc:
            code = server.wait_exit(2.0)
            what = f"exited with status {code}" if code is not None else "is still running"
            return ProbeResult(
                ok=False,
                detail=f"the completion failed ({exc}); the server {what}",
                signal=exit_signal(code),
                exit_code=code,
                health_seconds=round(healthy, 2),
            )
        return ProbeResult(
            ok=True,
            detail=f"answered {text.strip()[:40]!r}",
            health_seconds=round(healthy, 2),
            completion_seconds=round(time.monotonic() - asked, 2),
        )
    finally:
        server.stop()
