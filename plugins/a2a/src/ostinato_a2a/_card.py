"""The Agent Card of a served client: who it is, what it can do, how to reach it.

Built from the client's configuration: the name and description given (default: the
model's name), one skill per tool the client offers, streaming on, push notifications
as the server sends them, one JSON-RPC interface at the server's A2A URL, and — when the
server has a token — an HTTP bearer security scheme required by every call, the one
``ostinato serve`` checks.
The card never names a setting's value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
)
from a2a.utils.constants import PROTOCOL_VERSION_CURRENT

from ostinato.tools import ToolCallback

__all__ = ["BEARER_SCHEME", "agent_card"]

#: The name of the bearer security scheme in the card.
BEARER_SCHEME: Final = "bearer"
_JSONRPC: Final = "JSONRPC"
_MODES: Final = ["text/plain", "application/json"]


_CHAT: Final = AgentSkill(
    id="chat",
    name="chat",
    description="answers a message, calling its tools as it sees fit (one turn of the tool "
    "loop per task; calls that need approval leave the task input-required)",
    tags=["chat"],
    input_modes=["text/plain"],
    output_modes=list(_MODES),
)


def _skill(tool: ToolCallback) -> AgentSkill:
    definition = tool.tool_definition
    return AgentSkill(
        id=definition.name,
        name=definition.name,
        description=definition.description,
        tags=["tool"],
        input_modes=["text/plain"],
        output_modes=list(_MODES),
    )


def agent_card(
    *,
    name: str,
    description: str,
    version: str,
    url: str,
    tools: Sequence[ToolCallback] = (),
    token: bool = False,
    push: bool = False,
) -> AgentCard:
    """The card (see the module).

    Args:
        name: the agent's name.
        description: what it does.
        version: the agent's version (ostinato's, unless told otherwise).
        url: the absolute URL of its JSON-RPC endpoint.
        tools: the tools its turns offer: one skill each, after the ``chat`` skill.
        token: whether calls need the server's bearer token.
        push: whether the agent sends push notifications.
    """
    card = AgentCard(
        name=name,
        description=description,
        version=version,
        supported_interfaces=[
            AgentInterface(
                url=url, protocol_binding=_JSONRPC, protocol_version=PROTOCOL_VERSION_CURRENT
            )
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=push),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=list(_MODES),
        skills=[_CHAT, *(_skill(t) for t in tools)],
    )
    if token:
        scheme = SecurityScheme(
            http_auth_security_scheme=HTTPAuthSecurityScheme(
                scheme="Bearer",
                description="the server's token (OSTINATO_SERVE_TOKEN), as "
                "'Authorization: Bearer <token>'",
            )
        )
        card.security_schemes[BEARER_SCHEME].CopyFrom(scheme)
        requirement = SecurityRequirement()
        requirement.schemes[BEARER_SCHEME].SetInParent()
        card.security_requirements.append(requirement)
    return card
