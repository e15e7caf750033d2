"""OpenTelemetry traces and metrics of ostinato's tool loop, to the GenAI semantic
conventions.

Installed, the plugin instruments every auto-configured client (the turn span advisor,
and the model call and tool call span wrappers of its unit stack); :func:`instrument`
instruments a client built by hand. Names are loaded on first use, so importing the
package does not import OpenTelemetry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ostinato

if TYPE_CHECKING:
    from ostinato_opentelemetry._instrument import (
        instrument,
        instrumentation_advisors,
        instrumentation_wrappers,
        uninstrument_tools,
    )
    from ostinato_opentelemetry._settings import OpenTelemetrySettings
    from ostinato_opentelemetry._setup import configure_from_environment
    from ostinato_opentelemetry._turn_span import TurnSpanAdvisor

__all__ = [
    "OpenTelemetrySettings",
    "TurnSpanAdvisor",
    "__version__",
    "configure_from_environment",
    "instrument",
    "instrumentation_advisors",
    "instrumentation_wrappers",
    "uninstrument_tools",
]

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__


_LAZY = {
    "instrument": "ostinato_opentelemetry._instrument",
    "instrumentation_advisors": "ostinato_opentelemetry._instrument",
    "instrumentation_wrappers": "ostinato_opentelemetry._instrument",
    "uninstrument_tools": "ostinato_opentelemetry._instrument",
    "OpenTelemetrySettings": "ostinato_opentelemetry._settings",
    "configure_from_environment": "ostinato_opentelemetry._setup",
    "TurnSpanAdvisor": "ostinato_opentelemetry._turn_span",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ostinato_opentelemetry' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
