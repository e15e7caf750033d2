"""From settings to a model: paths, the bundled template, options, helpful errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ostinato.config import load_settings
from ostinato.errors import ConfigurationError
from ostinato_llamacpp import (
    BUNDLED_TEMPLATE,
    DEFAULT_MODEL,
    LlamaCppChatModel,
    LlamaCppSettings,
    create_chat_model,
)
from ostinato_llamacpp._artifacts import default_cache_dir
from ostinato_llamacpp._cpus import default_threads


def settings() -> LlamaCppSettings:
    return load_settings(LlamaCppSettings)


def test_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    loaded = settings()
    assert (loaded.threads, loaded.context, loaded.max_tokens) == (None, 8192, 2048)
    assert loaded.server_threads == default_threads() and loaded.server_install == "auto"
    assert loaded.temperature is None and loaded.url is None and loaded.chat_template is None
    assert loaded.layout.root == tmp_path / "xdg" / "ostinato" / "llamacpp"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_cache_dir() == Path.home() / ".cache" / "ostinato" / "llamacpp"


def test_bad_values_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSTINATO_LLAMACPP_THREADS", "0")
    monkeypatch.setenv("OSTINATO_LLAMACPP_SERVER_ARGS", "--a 'unclosed")
    with pytest.raises(ConfigurationError) as caught:
        settings()
    assert "OSTINATO_LLAMACPP_THREADS='0'" in str(caught.value)
    assert "OSTINATO_LLAMACPP_SERVER_ARGS" in str(caught.value)


def test_default_runs_the_bundled_model_with_its_template(cache: Path) -> None:
    model = create_chat_model("default")
    assert isinstance(model, LlamaCppChatModel)
    spec = model.spec_of_server
    assert spec.binary == (cache / "bin" / "llama-server")
    assert spec.model == (cache / "models" / DEFAULT_MODEL.filename).resolve()
    assert spec.chat_template == BUNDLED_TEMPLATE and BUNDLED_TEMPLATE.is_file()
    assert (spec.threads, spec.context, spec.alias) == (default_threads(), 8192, "default")
    options = model.default_options
    assert options.temperature == 0.0 and options.parallel_tool_calls is True
    assert options.model == "default" and options.max_tokens == 2048
    assert model.server is None  # nothing started


def test_a_gguf_path_runs_with_its_own_template_and_temperature(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gguf = tmp_path / "bigger.gguf"
    gguf.write_text("{}")
    monkeypatch.setenv("OSTINATO_LLAMACPP_THREADS", "4")
    monkeypatch.setenv("OSTINATO_LLAMACPP_CONTEXT", "0")
    monkeypatch.setenv("OSTINATO_LLAMACPP_SERVER_ARGS", "--flash-attn on")
    model = create_chat_model(str(gguf))
    spec = model.spec_of_server
    assert spec.model == gguf.resolve() and spec.chat_template is None
    assert (spec.threads, spec.context, spec.alias) == (4, 0, "bigger")
    assert spec.extra_args == ("--flash-attn", "on")
    assert model.default_options.temperature is None
    # a bare file name is looked up in the cache's models directory too
    (cache / "models" / "other.gguf").write_text("{}")
    assert create_chat_model("other.gguf").spec_of_server.model.name == "other.gguf"


def test_template_and_temperature_settings(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = tmp_path / "mine.jinja"
    template.write_text("{{ messages }}")
    monkeypatch.setenv("OSTINATO_LLAMACPP_CHAT_TEMPLATE", str(template))
    monkeypatch.setenv("OSTINATO_LLAMACPP_TEMPERATURE", "0.7")
    model = create_chat_model("default")
    assert model.spec_of_server.chat_template == template.resolve()
    assert model.default_options.temperature == 0.7
    monkeypatch.setenv("OSTINATO_LLAMACPP_CHAT_TEMPLATE", "gguf")
    assert create_chat_model("default").spec_of_server.chat_template is None
    monkeypatch.setenv("OSTINATO_LLAMACPP_CHAT_TEMPLATE", str(tmp_path / "missing.jinja"))
    with pytest.raises(ConfigurationError, match="OSTINATO_LLAMACPP_CHAT_TEMPLATE"):
        create_chat_model("default")


def test_without_setup_the_error_says_to_run_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stub_binary: Path
) -> None:
    monkeypatch.setenv("OSTINATO_LLAMACPP_CACHE_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("OSTINATO_LLAMACPP_SERVER", str(stub_binary))
    with pytest.raises(ConfigurationError) as caught:
        create_chat_model("default")
    assert "ostinato local setup" in str(caught.value)
    monkeypatch.delenv("OSTINATO_LLAMACPP_SERVER")
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    gguf = tmp_path / "x.gguf"
    gguf.write_text("{}")
    with pytest.raises(ConfigurationError, match="no llama-server found"):
        create_chat_model(str(gguf))
    with pytest.raises(ConfigurationError, match="names no GGUF file"):
        create_chat_model(str(tmp_path / "absent.gguf"))


def test_server_setting_accepts_a_path_or_a_name_on_path(
    cache: Path, stub_binary: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OSTINATO_LLAMACPP_SERVER", str(stub_binary))
    assert create_chat_model("default").spec_of_server.binary == stub_binary.resolve()
    monkeypatch.setenv("PATH", str(stub_binary.parent))
    monkeypatch.setenv("OSTINATO_LLAMACPP_SERVER", "llama-server")
    assert create_chat_model("default").spec_of_server.binary == stub_binary
    monkeypatch.setenv("OSTINATO_LLAMACPP_SERVER", "/no/such/llama-server")
    with pytest.raises(ConfigurationError, match="OSTINATO_LLAMACPP_SERVER"):
        create_chat_model("default")


def test_url_setting_uses_a_running_server_without_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSTINATO_LLAMACPP_URL", "http://127.0.0.1:8080")
    model = create_chat_model("default")
    assert model.base_url == "http://127.0.0.1:8080" and model.server is None


def test_threads_follow_the_usable_cpus_unless_set(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 8 usable CPUs (affinity and cgroup quota), whatever the host has: 4 threads to
    # generate, all 8 to read the prompt
    monkeypatch.setattr("ostinato_llamacpp._cpus.usable_cpus", lambda *a, **k: 8)

    def threads() -> tuple[int, int | None]:
        spec = create_chat_model("default").spec_of_server
        assert f"--threads {spec.threads}" in " ".join(spec.command(8080))
        return spec.threads, spec.threads_batch

    assert threads() == (4, 8)
    monkeypatch.setenv("OSTINATO_LLAMACPP_THREADS", "auto")
    assert threads() == (4, 8)
    monkeypatch.setenv("OSTINATO_LLAMACPP_THREADS", "3")
    assert threads() == (3, 3)


def test_the_server_follows_setups_choice_or_the_forced_path(
    cache: Path, stub_binary: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ostinato_llamacpp._artifacts import CacheLayout
    from ostinato_llamacpp._choice import ServerChoice, write_choice

    layout = CacheLayout(cache)
    assert create_chat_model("default").spec_of_server.binary == layout.server  # no record
    layout.prebuilt_server.parent.mkdir(parents=True)
    layout.prebuilt_server.symlink_to(stub_binary)
    write_choice(layout, ServerChoice("prebuilt", layout.prebuilt_server, "probe passed", 1))
    assert create_chat_model("default").spec_of_server.binary == layout.prebuilt_server
    monkeypatch.setenv("OSTINATO_LLAMACPP_SERVER_INSTALL", "source")
    assert create_chat_model("default").spec_of_server.binary == layout.server
    monkeypatch.setenv("OSTINATO_LLAMACPP_SERVER_INSTALL", "Prebuilt")
    assert create_chat_model("default").spec_of_server.binary == layout.prebuilt_server
    layout.prebuilt_server.unlink()
    monkeypatch.setenv("PATH", str(cache / "empty"))
    with pytest.raises(ConfigurationError, match="the prebuilt one is not at"):
        create_chat_model("default")
    monkeypatch.setenv("OSTINATO_LLAMACPP_SERVER_INSTALL", "sometimes")
    with pytest.raises(ConfigurationError, match="OSTINATO_LLAMACPP_SERVER_INSTALL"):
        create_chat_model("default")
