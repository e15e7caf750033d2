"""The ``server_and_model`` fixture the adapters' end-to-end tests share.

:func:`server_and_model_fixture` builds a fixture that starts a loopback server replaying
the exchanges a test names (``indirect`` parametrisation), builds the adapter's model
pointed at it, yields both, and closes the model and then the server afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import pytest

from ostinato.runtime import run_sync

__all__ = ["server_and_model_fixture"]


def server_and_model_fixture(
    served: Callable[..., AbstractContextManager[Any]], new_model: Callable[[Any], Any]
) -> Any:
    """A fixture yielding ``(server, model)``: ``served(*request.param)``, ``new_model(server)``."""

    @pytest.fixture
    def server_and_model(request: pytest.FixtureRequest) -> Iterator[tuple[Any, Any]]:
        with served(*request.param) as server:
            model = new_model(server)
            try:
                yield server, model
            finally:
                run_sync(model.aclose())

    return server_and_model
