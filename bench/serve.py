"""The served scenario: what ``ostinato-serve`` adds to a turn, and 200 streamed turns at
once through it.

A turn is a two-round tool turn (the model asks for one tool, then answers in four text
pieces, at once), the same client every time. Three ways to run it:

* **in process**: ``await client.prompt(q).call().acontent()`` — the floor;
* **ASGI in process**: ``POST /v1/chat/completions`` through ``httpx.ASGITransport`` —
  the app's own cost (routing, JSON in and out, the guard), no socket;
* **HTTP on loopback**: the same request to a real uvicorn in its own process (pinned to
  one core with ``taskset`` where it exists), over a kept-alive connection.

Then 200 streamed turns at once (``stream: true``, every chunk read, ``[DONE]`` checked),
against 200 concurrent ``stream().acontent()`` turns in process. Rounds are interleaved;
each number is the median of its rounds. Every answer is checked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

from ostinato import ChatClient, tool
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.testing import text_response, tool_call, tool_call_response

__all__ = ["ServeResults", "measure_serve", "render_serve", "served_app"]

VARIANTS = ("in process", "ASGI in process", "HTTP on loopback")
CONCURRENT = 200
ANSWER = "The lookup says K."
QUESTION = {"model": "bench", "messages": [{"role": "user", "content": "look k up"}]}


class BenchFailure(RuntimeError):
    """A served turn did not answer as it must."""


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return key.upper()


class _ToolThenAnswer:
    """Asks for ``lookup`` when the last message is the user's, then answers (streamed in
    four pieces)."""

    default_options = ToolCallingChatOptions(model="bench-model")

    async def call(self, prompt: Prompt) -> ChatResponse:
        if prompt.messages[-1].message_type.value == "user":
            return tool_call_response(tool_call("lookup", {"key": "k"}, id="c"), usage=(9, 3, 12))
        return text_response(ANSWER, usage=(20, 4, 24))

    async def stream(self, prompt: Prompt) -> AsyncIterator[ChatResponse]:
        if prompt.messages[-1].message_type.value == "user":
            yield await self.call(prompt)
            return
        for piece in ("The ", "lookup ", "says ", "K."):
            yield text_response(piece, finish_reason=None)
        yield text_response("", usage=(20, 4, 24))


def _client() -> ChatClient:
    return ChatClient.builder(_ToolThenAnswer()).default_tools(lookup).build()


def served_app() -> Any:
    """The app the uvicorn process serves (``uvicorn bench.serve:served_app --factory``)."""
    from ostinato_serve import ServeSettings, create_app

    settings = ServeSettings(max_concurrent_turns=4 * CONCURRENT)
    return create_app(_client(), settings=settings)


@contextlib.contextmanager
def _uvicorn() -> Iterator[str]:
    """The served app in its own uvicorn process on a free loopback port; its URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") and (os.cpu_count() or 1) > 1 else []
    command = [
        *pin,
        sys.executable,
        "-m",
        "uvicorn",
        "bench.serve:served_app",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-access-log",
        "--log-level",
        "info",
    ]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        for line in process.stderr:  # uvicorn says so once it listens
            if "Uvicorn running on" in line:
                break
        else:
            raise BenchFailure(f"the uvicorn process exited with {process.wait()}")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


def _checked(body: dict[str, Any]) -> None:
    content = body["choices"][0]["message"]["content"]
    if content != ANSWER:
        raise BenchFailure(f"a served turn answered {content!r}, expected {ANSWER!r}")


async def _in_process(client: ChatClient, turns: int) -> float:
    start = time.perf_counter()
    for _ in range(turns):
        if await client.prompt("look k up").call().acontent() != ANSWER:
            raise BenchFailure("an in-process turn answered wrongly")
    return (time.perf_counter() - start) / turns


async def _over_http(http: Any, turns: int) -> float:
    start = time.perf_counter()
    for _ in range(turns):
        response = await http.post("/v1/chat/completions", json=QUESTION)
        _checked(response.json())
    return (time.perf_counter() - start) / turns


async def _streamed_in_process(client: ChatClient) -> str:
    return "".join([piece async for piece in client.prompt("look k up").stream().acontent()])


async def _streamed_over_http(http: Any) -> str:
    text = []
    async with http.stream("POST", "/v1/chat/completions", json={**QUESTION, "stream": True}) as r:
        async for line in r.aiter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                choices = json.loads(line[6:])["choices"]
                text.append(choices[0]["delta"].get("content", "") if choices else "")
            elif line == "data: [DONE]":
                return "".join(text)
    raise BenchFailure("a served stream ended without [DONE]")


async def _concurrent(run: Any) -> float:
    start = time.perf_counter()
    answers = await asyncio.gather(*(run() for _ in range(CONCURRENT)))
    if any(a != ANSWER for a in answers):
        raise BenchFailure("a concurrent streamed turn answered wrongly")
    return time.perf_counter() - start


@dataclass(frozen=True)
class ServeResults:
    """Seconds per turn of each variant, and seconds per batch of 200 streamed turns
    (in process, served), one value per measured round."""

    per_turn_s: dict[str, list[float]]
    concurrent_s: dict[str, list[float]]
    turns_per_round: int

    def median(self, variant: str) -> float:
        """The median seconds per turn of ``variant``."""
        return statistics.median(self.per_turn_s[variant])

    def batch(self, where: str) -> float:
        """The median seconds of 200 concurrent streamed turns ``in process`` or ``served``."""
        return statistics.median(self.concurrent_s[where])


async def _measure(url: str, turns: int, repetitions: int) -> ServeResults:
    import httpx

    from ostinato_serve import create_app

    client = _client()
    limits = httpx.Limits(max_connections=2 * CONCURRENT, max_keepalive_connections=CONCURRENT)
    transport = httpx.ASGITransport(app=create_app(_client()))
    per_turn: dict[str, list[float]] = {name: [] for name in VARIANTS}
    concurrent: dict[str, list[float]] = {"in process": [], "served": []}
    async with (
        httpx.AsyncClient(transport=transport, base_url="http://bench") as asgi,
        httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as http,
    ):
        runs = {
            VARIANTS[0]: lambda: _in_process(client, turns),
            VARIANTS[1]: lambda: _over_http(asgi, turns),
            VARIANTS[2]: lambda: _over_http(http, turns),
        }
        batches = {
            "in process": lambda: _concurrent(lambda: _streamed_in_process(client)),
            "served": lambda: _concurrent(lambda: _streamed_over_http(http)),
        }
        for run in [*runs.values(), *batches.values()]:
            await run()  # warm-up (and the 200 connections opened)
        for repetition in range(repetitions):
            order = list(runs.items())
            for name, run in order if repetition % 2 == 0 else order[::-1]:
                per_turn[name].append(await run())
            for where, batch in batches.items():
                concurrent[where].append(await batch())
    return ServeResults(per_turn, concurrent, turns)


def measure_serve(*, quick: bool = False) -> ServeResults:
    """Run the served scenario (a uvicorn process on loopback for the HTTP variants)."""
    turns, repetitions = (20, 2) if quick else (500, 7)
    with _uvicorn() as url:
        return asyncio.run(_measure(url, turns, repetitions))


def render_serve(results: ServeResults) -> str:
    """The served section of the report, as Markdown."""
    base = results.median(VARIANTS[0])
    rounds = len(results.per_turn_s[VARIANTS[0]])
    lines = [
        "## Served — the OpenAI-compatible endpoint vs the client in process",
        "",
        "A two-round tool turn (the model asks for one tool, then answers, at once), "
        f"{results.turns_per_round} turns per round one after another, median of {rounds} "
        "rounds. *ASGI in process* is `POST /v1/chat/completions` through "
        "`httpx.ASGITransport` (the app's own cost); *HTTP on loopback* the same request to "
        "uvicorn in its own process over a kept-alive connection. The ratio is to the "
        "turn in process.",
        "",
        "| variant | µs per turn | added µs | ratio |",
        "|---|---:|---:|---:|",
    ]
    for name in VARIANTS:
        median = results.median(name)
        lines.append(
            f"| {name} | {median * 1e6:.0f} | {(median - base) * 1e6:+.0f} | {median / base:.2f} |"
        )
    inside, served = results.batch("in process"), results.batch("served")
    lines += [
        "",
        f"{CONCURRENT} streamed turns at once (`stream: true`, every chunk read), against "
        f"{CONCURRENT} concurrent `stream().acontent()` turns in process:",
        "",
        "| where | ms for the batch | turns per second | ratio |",
        "|---|---:|---:|---:|",
        f"| in process | {inside * 1e3:.0f} | {CONCURRENT / inside:.0f} | 1.00 |",
        f"| served (uvicorn, loopback) | {served * 1e3:.0f} | {CONCURRENT / served:.0f} | "
        f"{served / inside:.2f} |",
    ]
    return "\n".join(lines) + "\n"
