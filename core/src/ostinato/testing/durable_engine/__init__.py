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
* a tool no worker can resolve fails the turn with the error that names it.

Each check costs a few worker starts (seconds each): see the durable-turns guide for the
kit's cost per engine. This package imports pytest, so it is not re-exported by
:mod:`ostinato.testing`; it needs the ``openai`` and ``memory`` plugins installed (the
workers' model and memory).
"""

from ostinato.testing.durable_engine._checks import (
    TOOLS,
    DurableEngineConformance,
    Kit,
    worker_environment,
)
from ostinato.testing.durable_engine._fake_model import FakeModelServer, Gate
from ostinato.testing.durable_engine._workers import PROGRAM_SECONDS, Workers

__all__ = [
    "PROGRAM_SECONDS",
    "TOOLS",
    "DurableEngineConformance",
    "FakeModelServer",
    "Gate",
    "Kit",
    "Workers",
    "worker_environment",
]
