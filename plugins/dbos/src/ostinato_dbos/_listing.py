"""Finding durable turns by the start of their id, all of them or only the newest.

A turn is a DBOS workflow; its id is the workflow id. The order is the order the turns
were created in (the system database's ``created_at``, stamped when the workflow is
enqueued; two created in the same millisecond come in either order), never the ids'
text: ``turn:c:10`` sorts before ``turn:c:9`` as text, though it was created after it.
The newest ``n`` are one indexed query with a limit, however
many turns share the prefix, so a caller that needs only the latest turns (``ostinato
serve`` looking for a conversation's running turn) does not read them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dbos import DBOSClient

__all__ = ["turn_ids"]


def turn_ids(client: DBOSClient, prefix: str, newest: int | None = None) -> list[str]:
    """The ids of the turns starting with ``prefix``, oldest first (by creation); with
    ``newest``, only the ``newest`` created last (still oldest first).

    Raises:
        ValueError: ``newest`` is below 1.
    """
    from ostinato_dbos._workflow import WORKFLOW_NAME

    if newest is not None and newest < 1:
        raise ValueError(
            f"newest must be a number of turns (1 or more), got {newest!r}; leave it out "
            "(None) for every turn"
        )
    found = client.list_workflows(
        name=WORKFLOW_NAME,
        workflow_id_prefix=prefix,
        load_input=False,
        load_output=False,
        limit=newest,
        sort_desc=newest is not None,
    )
    ids = [t.workflow_id for t in found]
    return ids if newest is None else ids[::-1]
