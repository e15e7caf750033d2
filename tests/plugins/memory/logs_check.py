"""``ostinato logs`` over any repository: the check the store plugins' tests share.

:func:`check_logs_lists_by_recency_and_shows_one` saves two conversations through a
repository, then runs the command as a user does (the repository chosen by the
environment the caller set): ``--json`` lists them most recently changed first, and
``show`` prints one, tool calls included.
"""

from __future__ import annotations

import io
import json
from typing import Any

from ostinato.testing.memory_conformance import every_message_type, turn
from ostinato_memory._logs_command import run_logs_command

__all__ = ["check_logs_lists_by_recency_and_shows_one"]


def check_logs_lists_by_recency_and_shows_one(repository: Any) -> None:
    """Save ``older`` then ``newer`` through ``repository`` (closed afterwards); check the command."""
    repository.save_all_sync("older", turn("1"))
    repository.save_all_sync("newer", every_message_type())
    repository.close()

    out = io.StringIO()
    assert run_logs_command(["--json"], out) == 0
    listed = json.loads(out.getvalue())
    assert [(c["conversation_id"], c["message_count"]) for c in listed] == [
        ("newer", 5),
        ("older", 2),
    ]
    assert all(c["updated_at"] for c in listed)

    out = io.StringIO()
    assert run_logs_command(["show", "newer"], out) == 0
    assert 'tool call weather({"city": "Paris"}) [call_1]' in out.getvalue()
