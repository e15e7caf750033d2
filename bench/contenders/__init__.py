"""The contenders: the same conversation driven by each framework (and by hand).

Each contender lives in its own module and imports its framework only there, so a worker
process loads exactly one framework (which keeps import time and memory comparable).
:func:`load` finds a contender by name.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench.contenders._base import Contender

__all__ = ["CONTENDERS", "PEERS", "load"]

#: Contender name -> ``module:class``, in the order the report lists them.
CONTENDERS: dict[str, str] = {
    "floor": "bench.contenders.floor:Floor",
    "ostinato": "bench.contenders.ostinato_client:Ostinato",
    "floor-aiohttp": "bench.contenders.floor:FloorAiohttp",
    "ostinato-aiohttp": "bench.contenders.ostinato_client:OstinatoAiohttp",
    "pydantic-ai": "bench.contenders.peer_pydantic_ai:PydanticAI",
    "langchain": "bench.contenders.peer_langchain:LangChain",
    "openai-agents": "bench.contenders.peer_openai_agents:OpenAIAgents",
}

#: The peer frameworks (installed by the ``bench`` dependency group).
PEERS: tuple[str, ...] = ("pydantic-ai", "langchain", "openai-agents")


def load(name: str) -> Contender:
    """A new, not yet set up, instance of the contender called ``name``.

    Raises:
        KeyError: no contender has that name (the message lists them).
    """
    try:
        target = CONTENDERS[name]
    except KeyError:
        raise KeyError(f"unknown contender {name!r}; known: {', '.join(CONTENDERS)}") from None
    module_name, _, class_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    contender: Contender = cls()
    return contender
