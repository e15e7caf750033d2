"""The tool-advisor conformance kit: one test suite every tool advisor passes.

A tool advisor's test module subclasses :class:`ToolAdvisorConformance` and says how to
make the advisor (and, for an advisor whose model must find tools before calling them,
which responses come first); the kit runs scripted turns on the call and the stream
path, sync and async, and checks the loop-events contract, call/stream parity, text
deltas against ``content()``, limits, return-direct and every ending::

    from ostinato.testing.tool_advisor import ToolAdvisorConformance

    class TestMyAdvisorConformance(ToolAdvisorConformance):
        def make_advisor(self, **settings):
            return MyToolAdvisor(**settings)

The tests are plain functions (the async faces run in their own event loop). This
package imports pytest, so it is not re-exported by :mod:`ostinato.testing`.
"""

from ostinato.testing.tool_advisor._checks import check_turn
from ostinato.testing.tool_advisor._harness import PATHS, WAYS, Run, comparable, run_way
from ostinato.testing.tool_advisor._suite import KitTools, ToolAdvisorConformance

__all__ = [
    "PATHS",
    "WAYS",
    "KitTools",
    "Run",
    "ToolAdvisorConformance",
    "check_turn",
    "comparable",
    "run_way",
]
