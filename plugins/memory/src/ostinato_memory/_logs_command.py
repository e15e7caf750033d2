"""``ostinato logs``: the conversations of the configured repository, listed or shown.

``ostinato logs`` lists recent conversations (most recently changed first where the
repository records it, else by id); ``ostinato logs show ID`` prints one, message by
message, with when each was stored, tool calls, tool results and usage when recorded;
``--json`` prints the same as JSON (messages in their ``to_dict`` form, and
``stored_at``, one time or ``null`` per message). A conversation that is not stored is
an error (exit status 1), with ``--json`` too. The repository is the one every
``ostinato`` command uses (``MemorySettings.for_commands``: the one
``OSTINATO_MEMORY_REPOSITORY`` names, else SQLite), or ``--repository``, found among every
installed plugin's, so it works on SQLite, PostgreSQL and Redis alike.

``ostinato logs search WORDS [-s ID]`` searches the session logs of the same store
(session memory: every entry, summarized ones too) for entries holding every word, in one
session or in all of them, best first.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final, TextIO

from ostinato.errors import ConfigurationError, OstinatoError
from ostinato.memory import ChatMemoryRepository, SessionLog, SessionSearchHit
from ostinato.messages import AssistantMessage, Message, ToolResponseMessage, UserMessage
from ostinato_memory._listing import (
    ConversationSummary,
    StoredMessage,
    recent_conversations,
    stored_messages,
)

__all__ = ["DEFAULT_COUNT", "run_logs_command"]

#: How times are shown.
TIME_FORMAT: Final = "%Y-%m-%d %H:%M:%S %Z"
#: Conversations listed when ``--count`` is not given.
DEFAULT_COUNT: Final = 20
EXIT_ERROR: Final = 1
#: Characters of an entry a search shows.
EXCERPT: Final = 160
EXIT_CONFIGURATION: Final = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ostinato logs",
        description="Conversations stored by the memory repository "
        "(OSTINATO_MEMORY_REPOSITORY): list the recent ones, or show one.",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("-r", "--repository", help="the repository by name (default: setting)")
    parser.add_argument(
        "-n", "--count", type=int, default=DEFAULT_COUNT, help="conversations to list"
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.add_parser("list", help="list recent conversations (the default)")
    show = sub.add_parser("show", help="show one conversation")
    show.add_argument("conversation_id", metavar="ID")
    show.add_argument("--json", action="store_true", dest="show_json", help="print JSON")
    search = sub.add_parser("search", help="search the session logs (session memory)")
    search.add_argument("query", metavar="WORDS", nargs="+")
    search.add_argument("-s", "--session", help="search this session only (default: all)")
    search.add_argument("--json", action="store_true", dest="search_json", help="print JSON")
    return parser


async def _search(repository: ChatMemoryRepository, args: argparse.Namespace, out: TextIO) -> int:
    opener = getattr(repository, "session_log", None)
    if not callable(opener):
        print(
            f"ostinato: error: {type(repository).__name__} keeps no session log; fix: use a "
            "store with one (sqlite, postgres, redis)",
            file=sys.stderr,
        )
        return EXIT_ERROR
    log: SessionLog = opener()
    query = " ".join(args.query)
    try:
        sessions = [args.session] if args.session else await log.session_ids()
        hits: list[SessionSearchHit] = []
        for session in sessions:
            hits += [
                h
                for h in await log.search(session, query, limit=args.count)
                if h.session_id == session or args.session
            ]
        hits.sort(key=lambda h: -h.score)
        hits = hits[: max(args.count, 0)]
    finally:
        await _close(log)
    if args.json or args.search_json:
        document = [
            {
                "session_id": h.session_id,
                "position": h.entry.position,
                "kind": h.entry.kind.value,
                "score": h.score,
                "messages": [m.to_dict() for m in h.entry.messages],
            }
            for h in hits
        ]
        print(json.dumps(document, ensure_ascii=False, indent=2), file=out)
        return 0
    if not hits:
        print(f"nothing stored matches {query!r}", file=out)
        return 0
    for hit in hits:
        text = " ".join(hit.entry.text().split())
        excerpt = text if len(text) <= EXCERPT else text[: EXCERPT - 1] + "…"
        print(
            f"{hit.session_id}  #{hit.entry.position} {hit.entry.kind.value}  {excerpt}", file=out
        )
    return 0


def _repository(name: str | None) -> ChatMemoryRepository:
    from ostinato.config import create_plugin_manager, create_registry
    from ostinato.settings import Settings, load_settings
    from ostinato_memory._factories import create_chat_memory_repository, load_memory_settings

    settings = load_memory_settings().for_commands()  # the store `ostinato chat` writes
    registry = create_registry(create_plugin_manager(load_settings(Settings)))
    return create_chat_memory_repository(name or settings.repository, settings, registry)


async def _close(repository: object) -> None:
    for name in ("aclose", "close"):
        closer = getattr(repository, name, None)
        if callable(closer):
            result = closer()
            if inspect.isawaitable(result):
                await result
            return


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _summary_json(summary: ConversationSummary) -> dict[str, Any]:
    return {
        "conversation_id": summary.conversation_id,
        "message_count": summary.message_count,
        "updated_at": _iso(summary.updated_at),
    }


def _print_list(summaries: Sequence[ConversationSummary], out: TextIO) -> None:
    if not summaries:
        print("no conversations stored", file=out)
        return
    rows = [("conversation", "messages", "last change")]
    for s in summaries:
        when = s.updated_at.strftime(TIME_FORMAT) if s.updated_at else "-"
        rows.append((s.conversation_id, str(s.message_count), when))
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    for row in rows:
        print(f"{row[0].ljust(widths[0])}  {row[1].rjust(widths[1])}  {row[2]}".rstrip(), file=out)


def _usage(message: Message) -> str | None:
    usage = message.metadata.get("usage")
    if not isinstance(usage, dict) or not usage:
        return None
    return ", ".join(f"{key} {value}" for key, value in usage.items())


def _print_message(stored: StoredMessage, out: TextIO) -> None:
    message = stored.message
    when = f"  {stored.stored_at.strftime(TIME_FORMAT)}" if stored.stored_at else ""
    print(f"## {message.message_type.value}{when}", file=out)
    if isinstance(message, ToolResponseMessage):
        for response in message.responses:
            print(f"{response.name} [{response.id}] -> {response.response_data}", file=out)
    else:
        if message.text:
            print(message.text, file=out)
        if isinstance(message, UserMessage | AssistantMessage):
            for media in message.media:
                print(
                    f"[media {media.mime_type} {media.name or media.url or ''}]".rstrip(), file=out
                )
    if isinstance(message, AssistantMessage):
        reasoning = message.metadata.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            print(f"reasoning: {reasoning}", file=out)
        for call in message.tool_calls:
            print(f"tool call {call.name}({call.arguments}) [{call.id}]", file=out)
        usage = _usage(message)
        if usage:
            print(f"usage: {usage}", file=out)
    print(file=out)


async def _logs(args: argparse.Namespace, out: TextIO) -> int:
    repository = _repository(args.repository)
    try:
        if args.action == "search":
            return await _search(repository, args, out)
        if args.action == "show":
            messages = await stored_messages(repository, args.conversation_id)
            if not messages:  # also with --json: a script must not take it for an answer
                print(
                    f"ostinato: error: no conversation {args.conversation_id!r} is stored; "
                    "fix: `ostinato logs` lists the stored ones (`-r NAME` reads another "
                    "repository)",
                    file=sys.stderr,
                )
                return EXIT_ERROR
            if args.json or args.show_json:
                document = {
                    "conversation_id": args.conversation_id,
                    "messages": [m.message.to_dict() for m in messages],
                    "stored_at": [_iso(m.stored_at) for m in messages],
                }
                print(json.dumps(document, ensure_ascii=False, indent=2), file=out)
                return 0
            for message in messages:
                _print_message(message, out)
            return 0
        summaries = await recent_conversations(repository, max(args.count, 0))
        if args.json:
            print(
                json.dumps([_summary_json(s) for s in summaries], ensure_ascii=False, indent=2),
                file=out,
            )
        else:
            _print_list(summaries, out)
        return 0
    finally:
        await _close(repository)


def run_logs_command(argv: list[str], out: TextIO | None = None) -> int:
    """``ostinato logs [--json] [-n N] [-r NAME] [list | show ID | search WORDS [-s ID]]``;
    returns the exit code."""
    args = _parser().parse_args(argv)
    try:
        return asyncio.run(_logs(args, out or sys.stdout))
    except ConfigurationError as exc:
        print(f"ostinato: error: {exc}", file=sys.stderr)
        return EXIT_CONFIGURATION
    except OstinatoError as exc:
        print(f"ostinato: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
