"""ostinato-a2a: the A2A protocol for ostinato.

The server side: :func:`create_a2a_routes` / :func:`create_a2a_app` serve a client as an
A2A agent (tasks are turns, approvals are ``input-required``); ``ostinato serve`` mounts
it when this plugin is installed. The client side: :class:`A2AToolset` offers remote A2A
agents as tools (the ``a2a`` tool set of auto-configured clients, from
``OSTINATO_A2A_AGENTS``).

Every name is imported on first access (PEP 562): loading the plugin module costs
nothing beyond ``ostinato.plugins``; the ``a2a-sdk`` is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_exports

if TYPE_CHECKING:
    from ostinato_a2a._card import agent_card
    from ostinato_a2a._config import load_agents
    from ostinato_a2a._executor import (
        ANSWER_ARTIFACT,
        EVENT_METADATA_KEY,
        PENDING_METADATA_KEY,
        USAGE_METADATA_KEY,
        TurnExecutor,
    )
    from ostinato_a2a._remote import (
        PROGRESS_SOURCE,
        RemoteAgent,
        RemoteReply,
        delegated_usage,
        progress_data,
    )
    from ostinato_a2a._server import A2A_PATH, create_a2a_app, create_a2a_routes
    from ostinato_a2a._settings import A2ASettings
    from ostinato_a2a._tools import A2AAgentTool, A2AToolset

__all__ = [
    "A2A_PATH",
    "ANSWER_ARTIFACT",
    "EVENT_METADATA_KEY",
    "PENDING_METADATA_KEY",
    "PROGRESS_SOURCE",
    "USAGE_METADATA_KEY",
    "A2AAgentTool",
    "A2ASettings",
    "A2AToolset",
    "RemoteAgent",
    "RemoteReply",
    "TurnExecutor",
    "__version__",
    "agent_card",
    "create_a2a_app",
    "create_a2a_routes",
    "delegated_usage",
    "load_agents",
    "progress_data",
]

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "A2A_PATH": "ostinato_a2a._server",
        "A2AAgentTool": "ostinato_a2a._tools",
        "A2ASettings": "ostinato_a2a._settings",
        "A2AToolset": "ostinato_a2a._tools",
        "ANSWER_ARTIFACT": "ostinato_a2a._executor",
        "EVENT_METADATA_KEY": "ostinato_a2a._executor",
        "PENDING_METADATA_KEY": "ostinato_a2a._executor",
        "PROGRESS_SOURCE": "ostinato_a2a._remote",
        "USAGE_METADATA_KEY": "ostinato_a2a._executor",
        "delegated_usage": "ostinato_a2a._remote",
        "progress_data": "ostinato_a2a._remote",
        "RemoteAgent": "ostinato_a2a._remote",
        "RemoteReply": "ostinato_a2a._remote",
        "TurnExecutor": "ostinato_a2a._executor",
        "agent_card": "ostinato_a2a._card",
        "create_a2a_app": "ostinato_a2a._server",
        "create_a2a_routes": "ostinato_a2a._server",
        "load_agents": "ostinato_a2a._config",
    },
)
