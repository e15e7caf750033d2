"""The ``a2a`` plugin's settings (``OSTINATO_A2A_*``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import SecretStr
from pydantic_settings import SettingsConfigDict

from ostinato.settings import PluginSettings

__all__ = ["A2ASettings"]


class A2ASettings(PluginSettings):
    """The A2A server's card and the remote agents auto-configured clients call.

    Attributes:
        name: the served agent's name in its card (``OSTINATO_A2A_NAME``; default:
            ``ostinato`` and the model's name).
        description: its description (``OSTINATO_A2A_DESCRIPTION``).
        agents: remote agents, comma-separated base URLs or agent card URLs
            (``OSTINATO_A2A_AGENTS``), offered as tools by the ``a2a`` tool set.
        config: a JSON file naming remote agents (``OSTINATO_A2A_CONFIG``; see
            :func:`~ostinato_a2a.load_agents`), for names, tokens and more.
        token: the bearer token sent to the agents of :attr:`agents` (``OSTINATO_A2A_TOKEN``);
            sent to those agents only, never to one the card redirects to elsewhere.
        timeout: seconds one call of a remote agent may take (``OSTINATO_A2A_TIMEOUT``).
        push: the served agent's push notifications (``OSTINATO_A2A_PUSH``): ``public``
            (the default: to webhooks on public addresses only, never loopback, private
            or link-local ones), ``any`` (to any http(s) webhook: a trusted network) or
            ``off``.
    """

    model_config = SettingsConfigDict(env_prefix="OSTINATO_A2A_")

    name: str = ""
    description: str = ""
    agents: str = ""
    config: Path | None = None
    token: SecretStr | None = None
    timeout: float = 300.0
    push: Literal["public", "any", "off"] = "public"

    @property
    def agent_urls(self) -> list[str]:
        """The URLs of :attr:`agents`."""
        return [u.strip() for u in self.agents.split(",") if u.strip()]
