"""``ostinato index PATH...``: files cut into chunks, embedded and stored in the
configured vector store (``OSTINATO_RETRIEVAL_*``).

A folder is read recursively (``.md``, ``.markdown``, ``.txt``, ``.rst`` files). Each
file is a document whose id is its path as given (so indexing it again replaces its
chunks) and whose metadata holds ``source`` (the path); chunks are cut by
:class:`~ostinato.retrieval.TextSplitter` with ``OSTINATO_RETRIEVAL_CHUNK_SIZE`` and
``OSTINATO_RETRIEVAL_CHUNK_OVERLAP``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from ostinato.errors import OstinatoError
from ostinato.retrieval import Document, TextSplitter, VectorStore

__all__ = ["TEXT_SUFFIXES", "index_files", "main"]

#: The files a folder contributes.
TEXT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst"})


def _files(paths: list[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix.lower() in TEXT_SUFFIXES)
        elif path.is_file():
            yield path
        else:
            raise FileNotFoundError(f"{path}: no such file or folder")


def index_files(store: VectorStore, paths: list[Path], splitter: TextSplitter) -> tuple[int, int]:
    """Index ``paths`` into ``store``; the number of files and of chunks stored."""
    files = chunks = 0
    for path in _files(paths):
        text = path.read_text(encoding="utf-8", errors="replace")
        pieces = splitter.split(Document(text, {"source": str(path)}, id=str(path)))
        if pieces:
            store.add_sync(pieces)  # type: ignore[attr-defined]
        files, chunks = files + 1, chunks + len(pieces)
    return files, chunks


def main(argv: list[str]) -> int:
    """Run ``ostinato index``; 0 on success, 2 on a usage or configuration error."""
    parser = argparse.ArgumentParser(
        prog="ostinato index",
        description="Cut files into chunks, embed them and store them in the vector store "
        "OSTINATO_RETRIEVAL_* configures (SQLite file vectors.sqlite3 by default).",
    )
    parser.add_argument("paths", nargs="+", type=Path, help="files or folders to index")
    args = parser.parse_args(argv)
    from ostinato.settings import load_settings
    from ostinato_retrieval._auto import store_from_settings
    from ostinato_retrieval._settings import RetrievalSettings

    started = time.perf_counter()
    try:
        settings = load_settings(RetrievalSettings)
        splitter = TextSplitter(settings.chunk_size, settings.chunk_overlap)
        store = store_from_settings(settings)
        files, chunks = index_files(store, args.paths, splitter)
    except (OstinatoError, OSError, ValueError) as exc:
        print(f"ostinato index: {exc}", file=sys.stderr)
        return 2
    finally:
        closer = getattr(locals().get("store"), "close", None)
        if callable(closer):
            closer()
    seconds = time.perf_counter() - started
    print(f"indexed {files} file(s), {chunks} chunk(s) into {settings.store} in {seconds:.1f} s")
    return 0
