"""Building ``llama-server`` from the llama.cpp sources inside the llama-cpp-python sdist.

cmake configures ``vendor/llama.cpp`` for a CPU-only, static ``llama-server`` (no web UI
download, no tests, no examples, no OpenSSL) and builds only that target. On x86-64 the
build leaves out ggml's AMX matrix kernels: on CPUs that have AMX (Sapphire Rapids and
later) they crash while the bundled quantised model warms up, and the AVX-512 kernels
serve the same models. The build tree
is kept, so an interrupted build resumes where it stopped. Missing tools are reported
with how to install them before anything is downloaded.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

from ostinato.errors import OstinatoError

__all__ = [
    "CMAKE_OPTIONS",
    "BuildError",
    "Toolchain",
    "build_server",
    "extract_sources",
    "find_toolchain",
]

#: The cmake cache entries of every build (the web UI would otherwise be downloaded).
_BASE_CMAKE_OPTIONS: Final[tuple[str, ...]] = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DBUILD_SHARED_LIBS=OFF",
)


def _cpu_options(machine: str, os_name: str) -> tuple[str, ...]:
    """Compiler flags for this CPU family: no AMX kernels on x86-64 (see the module doc).

    GCC and Clang let an explicit ``-mno-…`` win over the ``-march=native`` that ggml adds,
    whatever their order on the command line.
    """
    if os_name == "nt" or machine.lower() not in {"x86_64", "amd64"}:
        return ()
    flags = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
    return (f"-DCMAKE_C_FLAGS={flags}", f"-DCMAKE_CXX_FLAGS={flags}")


#: Every cmake cache entry of this machine's build (also the built binary's stamp).
CMAKE_OPTIONS: Final[tuple[str, ...]] = (
    *_BASE_CMAKE_OPTIONS,
    *_cpu_options(platform.machine(), os.name),
)

_INSTALL_HINT: Final = (
    "fix: install cmake and a C/C++ compiler, e.g. `sudo apt-get install cmake g++ make` "
    "(Debian, Ubuntu), `xcode-select --install && brew install cmake` (macOS), or "
    "`pip install cmake ninja` plus your system's compiler; or set "
    "OSTINATO_LLAMACPP_SERVER to an existing llama-server and run `ostinato local setup "
    "--model-only`"
)
_STEP: Final = re.compile(rb"^\[\s*(\d+)\s*/\s*(\d+)\]|^\[\s*(\d+)%\]")
_SOURCES_MARKER: Final = ".ostinato-complete"


class BuildError(OstinatoError):
    """The tools to build llama-server are missing, or the build failed."""


@dataclass(frozen=True, slots=True)
class Toolchain:
    """The programs the build runs."""

    cmake: str
    generator: str
    c_compiler: str
    cxx_compiler: str


def _which_any(*names: str) -> str | None:
    for name in names:
        if name and (found := shutil.which(name)):
            return found
    return None


def find_toolchain() -> Toolchain:
    """cmake, a build tool (ninja preferred, else make) and C and C++ compilers.

    Raises:
        BuildError: one is missing; the message names each and how to install them.
    """
    cmake = _which_any("cmake")
    ninja = _which_any("ninja")
    make = _which_any("make", "gmake")
    cc = _which_any(os.environ.get("CC", ""), "cc", "gcc", "clang")
    cxx = _which_any(os.environ.get("CXX", ""), "c++", "g++", "clang++")
    missing = [
        what
        for what, found in (
            ("cmake", cmake),
            ("a build tool (ninja or make)", ninja or make),
            ("a C compiler (cc, gcc or clang; or $CC)", cc),
            ("a C++ compiler (c++, g++ or clang++; or $CXX)", cxx),
        )
        if not found
    ]
    if missing:
        raise BuildError(
            "building llama-server needs tools that were not found on PATH:\n"
            + "".join(f"  missing: {what}\n" for what in missing)
            + _INSTALL_HINT
        )
    assert cmake is not None
    assert cc is not None
    assert cxx is not None
    return Toolchain(cmake, "Ninja" if ninja else "Unix Makefiles", cc, cxx)


def extract_sources(sdist: Path, destination: Path, *, prefix: str) -> Path:
    """Unpack the ``vendor/llama.cpp`` tree of ``sdist`` into ``destination``.

    ``prefix`` is the sdist's top directory (``llama_cpp_python-0.3.36``). Skipped when a
    previous run finished (a marker file records it).
    """
    marker = destination / _SOURCES_MARKER
    if marker.is_file():
        return destination
    if destination.exists():
        shutil.rmtree(destination)
    root = f"{prefix}/vendor/llama.cpp/"
    staging = destination.with_name(destination.name + ".partial")
    if staging.exists():
        shutil.rmtree(staging)
    with tarfile.open(sdist, "r:gz") as archive:
        members = []
        for member in archive.getmembers():
            if member.name.startswith(root):
                member.name = member.name[len(root) :]
                if member.name:
                    members.append(member)
        extract: Callable[..., None] = archive.extractall
        if hasattr(tarfile, "data_filter"):
            extract(staging, members=members, filter="data")
        else:  # pragma: no cover - Python 3.11 before 3.11.4
            extract(staging, members=members)
    if not (staging / "CMakeLists.txt").is_file():
        raise BuildError(f"{sdist.name} has no {root} with a CMakeLists.txt")
    staging.rename(destination)
    marker.write_text("extracted\n")
    return destination


def build_server(
    sources: Path,
    build_dir: Path,
    output: Path,
    *,
    toolchain: Toolchain,
    jobs: int,
    on_progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Configure and build the ``llama-server`` target; copy the binary to ``output``.

    The full cmake output goes to ``build_dir/build.log``; ``on_progress(done, total)``
    follows the build tool's ``[n/N]`` (or ``[ n%]``) lines.

    Raises:
        BuildError: configuring or building failed (with the log's last lines).
    """
    build_dir.mkdir(parents=True, exist_ok=True)
    log_path = build_dir / "build.log"
    env = {**os.environ, "CC": toolchain.c_compiler, "CXX": toolchain.cxx_compiler}
    configure = [toolchain.cmake, "-S", str(sources), "-B", str(build_dir)]
    if not (build_dir / "CMakeCache.txt").is_file():
        configure += ["-G", toolchain.generator]
    configure += list(CMAKE_OPTIONS)
    build = [toolchain.cmake, "--build", str(build_dir), "--target", "llama-server"]
    build += ["--config", "Release", "-j", str(max(jobs, 1))]
    with log_path.open("wb") as log:
        for command in (configure, build):
            log.write(b"$ " + " ".join(command).encode() + b"\n")
            log.flush()
            _run_logged(command, log, env, on_progress)
    built = _find_binary(build_dir)
    output.parent.mkdir(parents=True, exist_ok=True)
    staging = output.with_name(output.name + ".partial")
    shutil.copy2(built, staging)
    staging.chmod(0o755)
    staging.replace(output)
    return output


def _run_logged(
    command: list[str],
    log: BinaryIO,
    env: dict[str, str],
    on_progress: Callable[[int, int], None] | None,
) -> None:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    assert process.stdout is not None
    with process:
        for line in process.stdout:
            log.write(line)
            match = _STEP.match(line.strip())
            if match and on_progress is not None:
                if match.group(3) is not None:
                    on_progress(int(match.group(3)), 100)
                else:
                    on_progress(int(match.group(1)), int(match.group(2)))
    if process.returncode != 0:
        log_path = Path(log.name)
        log.flush()
        tail = log_path.read_text("utf-8", "replace").splitlines()[-25:]
        raise BuildError(
            f"`{' '.join(command[:3])} ...` failed with status {process.returncode}\n"
            f"  log: {log_path}\n  last output:\n    " + "\n    ".join(tail) + "\n"
            "fix: read the log; a missing compiler feature or too little memory are the "
            "usual causes (try --jobs 1)"
        )


def _find_binary(build_dir: Path) -> Path:
    for candidate in ("bin/llama-server", "bin/Release/llama-server.exe", "bin/llama-server.exe"):
        path = build_dir / candidate
        if path.is_file():
            return path
    raise BuildError(f"the build finished but no llama-server binary is under {build_dir}/bin")
