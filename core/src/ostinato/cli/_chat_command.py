"""``ostinato chat``: ask a model, watch it use tools, read its answer.

``ostinato chat "question"`` runs one turn and exits; without a question it reads the
question from standard input when that is not a terminal, and opens an interactive
session when it is. The answer streams to stdout; tool calls, usage totals, progress and
errors go to stderr. Exit codes: 0 answered, 1 the model (or a setup step) failed,
2 a usage or configuration error, 3 the tool loop stopped before an answer (iteration
cap, limit, no progress), 4 tool calls the model asked for were not run (no tool loop),
130 cancelled with Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from typing import Any, Final, TextIO

from ostinato.cli._chat_session import ChatSession
from ostinato.cli._client_setup import add_client_options, open_configured_session
from ostinato.cli._context import CliContext
from ostinato.cli._interrupts import SessionInterrupts, TurnInterrupted
from ostinato.cli._model_choice import ModelChoice, choose_model, describe_model_error
from ostinato.cli._output import print_error, print_json
from ostinato.cli._terminal import TerminalRenderer
from ostinato.cli._turn_outcome import turn_outcome
from ostinato.errors import ConfigurationError, ModelError

__all__ = ["EXIT_CANCELLED", "add_chat_command", "ask_once", "run_chat"]

#: Exit code of a turn cancelled with Ctrl-C (128 + SIGINT, as shells report it).
EXIT_CANCELLED: Final = 130


def add_chat_command(subparsers: Any) -> None:
    """Declare ``ostinato chat [QUESTION] [options]``."""
    parser = subparsers.add_parser(
        "chat",
        help="ask a model (tools, memory, streaming); without a question: an interactive session",
        description=(
            "Ask the configured model (--model, else OSTINATO_MODEL, else the local default "
            "llamacpp:default) a question. The answer streams to stdout; each tool call, its "
            "result and duration, and the usage totals go to stderr. Without a question, "
            "an interactive session opens (Ctrl-C cancels the current turn, Ctrl-D quits)."
        ),
    )
    parser.add_argument("question", nargs="*", help="the question (words are joined)")
    add_client_options(parser)
    parser.add_argument(
        "--conversation",
        "-c",
        metavar="ID",
        help="remember the conversation under ID (SQLite, via ostinato-memory), so that "
        "the next invocation with the same ID continues it",
    )
    parser.add_argument(
        "--no-stream", action="store_true", help="wait for the whole answer instead of streaming"
    )
    parser.add_argument(
        "--json", action="store_true", help="print the final ChatResponse as JSON on stdout"
    )
    parser.add_argument(
        "--rag",
        action="store_true",
        help="answer from the documents ostinato index stored: each question is searched "
        "in the index and what is found is added to it (needs ostinato-retrieval; "
        "OSTINATO_RETRIEVAL_*)",
    )
    parser.add_argument(
        "--approve",
        action="store_true",
        help="ask before each tool call runs: y runs it, n denies it (with a reason), e edits "
        "its arguments",
    )
    parser.set_defaults(handler=run_chat)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def ask_once(
    session: ChatSession,
    runner: asyncio.Runner,
    question: str,
    *,
    as_json: bool,
    out: TextIO,
    err: TextIO,
    interrupts: SessionInterrupts | None = None,
) -> int:
    """Run one turn on ``runner`` and show it; the exit code (0, 1, 3, 4 or 130).

    In an interactive session, ``interrupts`` routes Ctrl-C to the turn; without it,
    asyncio's runner turns the first Ctrl-C into a cancelled turn.
    """
    renderer = TerminalRenderer(out, err, show_answer=not as_json)
    try:
        if interrupts is None:
            result = runner.run(session.ask(question, renderer))
        else:
            result = interrupts.run_turn(runner, session.ask(question, renderer))
    except (KeyboardInterrupt, TurnInterrupted):
        renderer.cancelled()
        return EXIT_CANCELLED
    except ModelError as exc:
        renderer.stop()
        print_error(describe_model_error(exc, session.choice), err, error=exc)
        return 1
    renderer.finish(result.response, result.rounds, result.seconds)
    if as_json:
        print_json(result.response.to_dict() if result.response is not None else None, out)
    code, why = turn_outcome(
        result.response, result.ended, result.rounds, result.not_run, result.limit
    )
    if why is not None:
        print_error(why, err, exit_code=code, with_json=False)
    return code


def _question(args: argparse.Namespace) -> str | None:
    """The question; ``None`` for an interactive session (no question, stdin a terminal).

    Raises:
        ConfigurationError: no question was given and standard input, not a terminal,
            was empty (``ostinato chat < /dev/null``): there is nothing to ask.
    """
    if args.question:
        return " ".join(args.question)
    if _is_terminal(sys.stdin):
        return None
    text = sys.stdin.read().strip()
    if not text:
        raise ConfigurationError(
            "no question: none on the command line, and standard input (not a terminal) "
            "was empty\n"
            'fix: ostinato chat "your question", pipe the question in (echo ... | ostinato '
            "chat), or run ostinato chat on a terminal for an interactive session"
        )
    return text


def _open(args: argparse.Namespace, context: CliContext, choice: ModelChoice) -> ChatSession:
    return open_configured_session(
        args,
        context,
        choice,
        conversation_id=args.conversation,
        stream=not args.no_stream,
        approve=args.approve,
        rag=args.rag,
    )


def run_chat(args: argparse.Namespace, context: CliContext) -> int:
    """Run ``ostinato chat``; the exit code."""
    settings, _, registry = context.loaded()
    choice = choose_model(args.model, settings.model, registry)
    if args.conversation is not None and not args.conversation.strip():
        print_error(
            "--conversation needs a non-blank ID\nfix: e.g. --conversation trip-2025", exit_code=2
        )
        return 2
    question = _question(args)
    session = _open(args, context, choice)
    with asyncio.Runner() as runner:
        try:
            if question is not None:
                return ask_once(
                    session, runner, question, as_json=args.json, out=sys.stdout, err=sys.stderr
                )
            from ostinato.cli._interactive import run_interactive

            return run_interactive(session, runner, as_json=args.json)
        finally:
            # Closing must not hide the turn's outcome.
            with contextlib.suppress(KeyboardInterrupt, Exception):
                runner.run(session.aclose())
