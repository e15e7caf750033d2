"""The durable engine conformance kit: one test suite every durable engine subclasses.

An engine's test module subclasses :class:`DurableEngineConformance`, names its engine
and gives a fixture ``engine_env``: the environment (``OSTINATO_<ENGINE>_*``) pointing
its workers and submitters at a service of the test's own (started by the test, on
loopback). The kit then runs real ``ostinato worker --engine NAME`` processes against a
counting fake model server (:class:`FakeModelServer`) with counting tools
(:mod:`ostinato.testing.durable_engine.tools`), and checks that:

* a worker SIGKILLed in a model round, in a tool call and between two units: the turn
  completes on a restarted worker or on another live one; each completed unit ran
  exactly once, the one in flight at most twice (a tool with the same idempotency key);
  memory holds the turn once; its events are read back each once, in order;
* a turn waiting for approval outlives every worker, and ``ostinato approve`` after they
  all restarted resumes it;
* a cancelled turn (``cancel``, the engine's own way) ends cancelled, its events ending
  as an in-process cancelled turn's do;
* the iteration cap and the usage limits end a durable turn as they end one in process;
* a tool no worker can resolve fails the turn with the error that names it;
* a reader follows a turn's log live across a worker killed in a streamed round, and one
  that dropped its connection before the kill reattaches by position after it: both read
  the log event for event, nothing lost or repeated; bad positions fail at once;
* ordered turns, for an engine whose ``submit`` takes ``exclusive`` and ``after``
  (:mod:`ostinato.testing.durable_engine._ordering`): an id taken once of two racing
  submissions, a turn after another running once that one has ended;
* the crash matrix (:mod:`ostinato.testing.durable_engine._crash_matrix`): turns calling
  a destructive tool (:mod:`ostinato.testing.durable_effects`), their workers
  SIGKILLed inside the tool before and after its effect and around it at random points:
  the effect never happens twice, and every call killed inside the tool is surfaced as
  in doubt and resolved by the tool's rule. A few runs in the default suite; the slow
  check (``@pytest.mark.slow``, ``make crash-matrix``) runs 200.

Every check reads the whole log back (positions 1 to n, each once) and compares its kinds
with each run of pieces folded into one and withdrawals applied (see
:mod:`ostinato.testing.durable_engine._reading`), and its last loop's text with the answer.

The kit's fake model server (:class:`FakeModelServer`: its plans, gates and counts) and
worker processes (:class:`Workers`) serve an engine's own tests too.

Each check costs a few worker starts (seconds each): see the durable-turns guide for the
kit's cost per engine. This package imports pytest, so it is not re-exported by
:mod:`ostinato.testing`; it needs the ``openai`` and ``memory`` plugins installed (the
workers' model and memory).
"""

import pytest

# The checks' assertions explain themselves (pytest rewrites them, as in a test module).
pytest.register_assert_rewrite(
    "ostinato.testing.durable_engine._checks",
    "ostinato.testing.durable_engine._crash_matrix",
    "ostinato.testing.durable_engine._ordering",
    "ostinato.testing.durable_engine._reading",
)

from ostinato.testing.durable_engine._checks import (  # noqa: E402
    TOOLS,
    DurableEngineConformance,
    Kit,
    worker_environment,
)
from ostinato.testing.durable_engine._fake_model import (  # noqa: E402
    FakeModelServer,
    Gate,
    long_answer,
)
from ostinato.testing.durable_engine._workers import PROGRAM_SECONDS, Workers  # noqa: E402

__all__ = [
    "PROGRAM_SECONDS",
    "TOOLS",
    "DurableEngineConformance",
    "FakeModelServer",
    "Gate",
    "Kit",
    "Workers",
    "long_answer",
    "worker_environment",
]
