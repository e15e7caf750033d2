"""Loading ostinato's settings from given variables, for the settings tests."""

from __future__ import annotations

import pytest

from ostinato.errors import ConfigurationError
from ostinato.settings import Settings, load_settings

__all__ = ["refused"]


def refused(monkeypatch: pytest.MonkeyPatch, variables: dict[str, str]) -> ConfigurationError:
    """The error ``load_settings(Settings)`` raises with ``variables`` set (it must raise)."""
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError) as caught:
        load_settings(Settings)
    return caught.value
