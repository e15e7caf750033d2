"""The remote agents of auto-configured clients: ``OSTINATO_A2A_AGENTS`` and the file
``OSTINATO_A2A_CONFIG`` names.

The file is JSON::

    {"agents": {"billing": {"url": "https://billing.example/", "tokenEnv": "BILLING_TOKEN",
                            "headers": {"X-Team": "ops"}, "timeout": 60}}}

Each key is the agent's tool name; ``url`` is its base URL or its card's URL; the token
is read from the environment variable ``tokenEnv`` names (never written in the file),
and is sent to that agent's origin only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ostinato.errors import ConfigurationError
from ostinato_a2a._remote import RemoteAgent
from ostinato_a2a._settings import A2ASettings

__all__ = ["agents_from_settings", "load_agents"]


def _problem(path: Path, what: str) -> ConfigurationError:
    return ConfigurationError(
        f'{path}: {what}\nfix: write {{"agents": {{"<name>": {{"url": "https://..."}}}}}} '
        "(optional: tokenEnv, headers, timeout)"
    )


def _agent(path: Path, name: str, entry: Any, timeout: float) -> RemoteAgent:
    if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
        raise _problem(path, f"agent {name!r} needs a 'url' text, got {entry!r}")
    headers = entry.get("headers", {})
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        raise _problem(path, f"agent {name!r}: 'headers' must map names to texts")
    token = None
    variable = entry.get("tokenEnv")
    if variable is not None:
        token = os.environ.get(str(variable))
        if not token:
            raise ConfigurationError(
                f"{path}: agent {name!r} reads its token from {variable}, which is not set\n"
                f"fix: set {variable}, or remove 'tokenEnv'"
            )
    seconds = entry.get("timeout", timeout)
    if not isinstance(seconds, int | float) or seconds <= 0:
        raise _problem(path, f"agent {name!r}: 'timeout' must be a positive number of seconds")
    return RemoteAgent(
        entry["url"], name=name, token=token, headers=headers, timeout=float(seconds)
    )


def load_agents(path: str | Path, *, timeout: float = 300.0) -> list[RemoteAgent]:
    """The agents of an A2A agents file (see the module).

    Raises:
        ConfigurationError: the file cannot be read, is not JSON, or an entry is broken.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _problem(path, f"cannot read it as JSON ({exc})") from None
    agents = data.get("agents") if isinstance(data, dict) else None
    if not isinstance(agents, dict):
        raise _problem(path, "expected an object with 'agents'")
    return [_agent(path, name, entry, timeout) for name, entry in agents.items()]


def agents_from_settings(settings: A2ASettings) -> list[RemoteAgent]:
    """The agents of :attr:`~A2ASettings.agents` (with :attr:`~A2ASettings.token`), then
    those of :attr:`~A2ASettings.config`."""
    token = settings.token.get_secret_value() if settings.token is not None else None
    agents = [
        RemoteAgent(url, token=token, timeout=settings.timeout) for url in settings.agent_urls
    ]
    if settings.config is not None:
        agents.extend(load_agents(settings.config, timeout=settings.timeout))
    return agents
