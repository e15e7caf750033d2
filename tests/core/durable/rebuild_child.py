"""The other process of the rebuild round trips: a worker-like process whose client is
auto-configured from its environment. It reads units from standard input, one JSON
object a line (``{"kind", "name", "description"}``), rebuilds each on its client, runs it
through the client's unit stack and writes one JSON line a unit: ``{"result": ...}`` (the
encoded result; a streamed round also has ``"chunks"``, each ``ChatResponse.to_dict()``)
or ``{"error": "<class>: <message>"}``.

Run as ``python -m tests.core.durable.rebuild_child``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import ostinato
from ostinato.durable import arebuild_unit
from ostinato.units import ModelStream

__all__ = ["main"]


async def _run(client: ostinato.ChatClient, item: dict[str, Any]) -> dict[str, Any]:
    try:
        unit = await arebuild_unit(item["kind"], item["name"], item["description"], client)
        if isinstance(unit, ModelStream):
            chunks = [chunk async for chunk in client.units.stream(unit)]
            aggregate = ostinato.MessageAggregator.aggregate(chunks)
            return {"result": unit.encode(aggregate), "chunks": [c.to_dict() for c in chunks]}
        return {"result": unit.encode(await client.units.run(unit))}
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}"}


async def main() -> None:
    """Answer each unit read from standard input (see the module's docstring)."""
    client = ostinato.chat_client()
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(await _run(client, json.loads(line))), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
