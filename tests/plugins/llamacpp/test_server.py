"""``LlamaServer`` with the stub: start, health wait, failures at start, stop, no orphans."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from ostinato_llamacpp import LlamaServer, LlamaServerStartError, ServerSpec
from ostinato_llamacpp._server import LOOPBACK, free_port
from tests.plugins.llamacpp.processes import alive, server_pid, wait_gone

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process handling")


def health(server: LlamaServer) -> int:
    with urllib.request.urlopen(f"{server.base_url}/health", timeout=5) as reply:
        return int(reply.status)


def test_command_line_carries_the_spec(tmp_path: Path) -> None:
    spec = ServerSpec(
        binary=Path("/opt/llama-server"),
        model=Path("/m/model.gguf"),
        threads=1,
        context=4096,
        chat_template=Path("/t/tools.jinja"),
        alias="default",
        extra_args=("--flash-attn", "on"),
    )
    command = spec.command(8123)
    assert command[:3] == ["/opt/llama-server", "--model", "/m/model.gguf"]
    assert " ".join(command[3:]) == (
        "--host 127.0.0.1 --port 8123 --threads 1 --parallel 1 --jinja --no-webui "
        "--ctx-size 4096 --chat-template-file /t/tools.jinja --alias default --flash-attn on"
    )
    assert "--ctx-size" not in ServerSpec(Path("s"), Path("m"), context=0).command(1)
    batch = ServerSpec(Path("s"), Path("m"), threads=1, threads_batch=2).command(1)
    assert "--threads 1 --threads-batch 2 --parallel 1" in " ".join(batch)


def test_free_port_is_bindable() -> None:
    port = free_port()
    with socket.socket() as s:
        s.bind((LOOPBACK, port))


def test_start_waits_until_healthy_and_stop_leaves_nothing(
    make_spec: Callable[..., ServerSpec], tmp_path: Path
) -> None:
    spec = make_spec(loading_seconds=0.6)
    server = LlamaServer(spec, log_dir=tmp_path / "logs")
    started = time.monotonic()
    server.start()
    assert time.monotonic() - started >= 0.5  # it waited through the 503s
    assert server.running and health(server) == 200
    assert server.base_url == f"http://127.0.0.1:{server.port}"
    guard, stub = server.pid, server_pid(spec)
    assert guard is not None and alive(guard) and alive(stub)
    log = server.log_path
    assert log is not None and "listening on" in log.read_text()
    server.start()  # a no-op while it runs
    assert server.pid == guard

    server.stop()
    assert not server.running and server.returncode is None
    assert wait_gone(stub) and wait_gone(guard)
    assert not log.exists()  # a clean stop removes the log


def test_context_manager_starts_and_stops(make_spec: Callable[..., ServerSpec]) -> None:
    spec = make_spec()
    with LlamaServer(spec) as server:
        assert health(server) == 200
        stub = server_pid(spec)
    assert wait_gone(stub)


def test_exit_while_starting_is_a_typed_error_with_the_log(
    make_spec: Callable[..., ServerSpec], tmp_path: Path
) -> None:
    server = LlamaServer(make_spec(exit_at_start=7), log_dir=tmp_path)
    with pytest.raises(LlamaServerStartError) as caught:
        server.start()
    error = caught.value
    assert error.exit_code == 7 and error.provider == "llamacpp"
    assert "exited with status 7 while starting" in str(error)
    assert "failing at start as scripted" in error.log_tail
    assert error.log_path is not None and error.log_path.exists()  # kept: it failed
    assert not server.running


def test_not_healthy_in_time_is_a_typed_error_and_the_server_is_stopped(
    make_spec: Callable[..., ServerSpec],
) -> None:
    spec = make_spec(loading_seconds=60)
    server = LlamaServer(spec, startup_timeout=1.0)
    with pytest.raises(LlamaServerStartError, match="did not become healthy within 1 s"):
        server.start()
    assert not server.running
    assert wait_gone(server_pid(spec))


def test_missing_binary_fails_at_start(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_text("{}")
    server = LlamaServer(ServerSpec(binary=tmp_path / "nope", model=model), startup_timeout=5)
    with pytest.raises(LlamaServerStartError, match="exited with status"):
        server.start()


def test_a_crashed_server_starts_again_on_a_new_process(
    make_spec: Callable[..., ServerSpec],
) -> None:
    spec = make_spec()
    server = LlamaServer(spec)
    server.start()
    first = server_pid(spec)
    Path(json.loads(spec.model.read_text())["pid_file"]).unlink()
    subprocess.run(["kill", "-KILL", str(first)], check=True)
    assert wait_gone(first)
    assert server.wait_exit(5) is not None and not server.running
    server.start()
    try:
        assert health(server) == 200 and server_pid(spec) != first
    finally:
        server.stop()


def test_killing_the_guard_kills_the_server(make_spec: Callable[..., ServerSpec]) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux only")
    spec = make_spec()
    server = LlamaServer(spec)
    server.start()
    guard = server.pid
    assert guard is not None
    subprocess.run(["kill", "-KILL", str(guard)], check=True)
    assert wait_gone(server_pid(spec))
    server.stop()


# The owner takes Ctrl-C as a program run from a terminal does. A process started in the
# background by a non-interactive shell (`pytest ... &` in a script) has SIGINT ignored,
# and its children inherit that: without this line the owner would never see the SIGINT.
_OWNER = """
import signal, sys, time
from pathlib import Path
from ostinato_llamacpp import LlamaServer, ServerSpec
signal.signal(signal.SIGINT, signal.default_int_handler)
spec = ServerSpec(binary=Path(sys.argv[1]), model=Path(sys.argv[2]), context=0)
server = LlamaServer(spec)
server.start()
print("ready", flush=True)
sys.stdin.readline()  # the test looks at the server, then says go (or sends a signal)
if sys.argv[3] == "exit":
    sys.exit(0)  # without stopping: atexit must
time.sleep(60)
"""


@pytest.mark.parametrize(
    ("ending", "how"),
    [
        ("exit", "interpreter exit without stop()"),
        ("sigint", "Ctrl-C (KeyboardInterrupt)"),
        ("sigterm", "SIGTERM (no atexit)"),
        ("sigkill", "SIGKILL (no atexit)"),
    ],
)
def test_no_orphan_however_the_owner_ends(
    make_spec: Callable[..., ServerSpec], tmp_path: Path, ending: str, how: str
) -> None:
    spec = make_spec()
    script = tmp_path / "owner.py"
    script.write_text(textwrap.dedent(_OWNER))
    with subprocess.Popen(
        [sys.executable, str(script), str(spec.binary), str(spec.model), ending],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as owner:
        try:
            assert owner.stdout is not None
            assert owner.stdout.readline().strip() == "ready"
            stub = server_pid(spec)
            assert alive(stub)
            signals = {
                "sigint": signal.SIGINT,
                "sigterm": signal.SIGTERM,
                "sigkill": signal.SIGKILL,
            }
            if ending in signals:
                owner.send_signal(signals[ending])
                owner.wait(15)
            else:
                owner.communicate("go\n", timeout=15)
            assert wait_gone(stub), f"the server outlived its owner after {how}"
        finally:
            if owner.poll() is None:
                owner.kill()


def test_exit_statuses_name_the_signal_that_ended_the_server() -> None:
    from ostinato_llamacpp._errors import exit_signal

    assert exit_signal(132) == "SIGILL"  # the guard's and the shell's 128 + number
    assert exit_signal(-11) == "SIGSEGV"  # Python's negative status
    assert [exit_signal(code) for code in (None, 0, 1, 7, 128, 128 + 200)] == [None] * 6
