"""The ``retrieval`` plugin module (entry point ``ostinato: retrieval``).

It registers nothing in the configuration yet: the advisors and the SQLite store are
built by the application (``ostinato_retrieval``), because they need its vector store and
embedding model. Import-light on purpose: importing it imports neither sqlite3 nor
sqlite-vec.
"""

from __future__ import annotations

__all__: list[str] = []
