"""The plugin's public surface: every module has ``__all__`` and a docstring, every
exported name exists and is documented, and the package exports exactly these names."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import ostinato_llamacpp

PUBLIC = {
    "BUNDLED_TEMPLATE",
    "DEFAULT_MODEL",
    "DEFAULT_MODEL_NAME",
    "LLAMA_CPP_SDIST",
    "CacheLayout",
    "DistributionFile",
    "LlamaCppChatModel",
    "LlamaCppSettings",
    "LlamaServer",
    "LlamaServerCrashedError",
    "LlamaServerError",
    "LlamaServerStartError",
    "ModelPart",
    "PinnedModel",
    "ServerSpec",
    "SetupOptions",
    "SetupResult",
    "SmallModelHintAdvisor",
    "__version__",
    "acquire_server",
    "create_chat_model",
    "default_cache_dir",
    "release_server",
    "run_setup",
    "small_model_hint",
}

MODULES = [
    "ostinato_llamacpp",
    *sorted(
        info.name
        for info in pkgutil.walk_packages(ostinato_llamacpp.__path__, "ostinato_llamacpp.")
    ),
]


def test_the_package_exports_exactly_the_intended_names() -> None:
    assert set(ostinato_llamacpp.__all__) == PUBLIC
    for name in PUBLIC:
        assert getattr(ostinato_llamacpp, name) is not None
    with pytest.raises(AttributeError):
        _ = ostinato_llamacpp.nothing_here  # type: ignore[attr-defined]
    assert dir(ostinato_llamacpp) == sorted(PUBLIC)


@pytest.mark.parametrize("name", MODULES)
def test_every_module_documents_itself_and_every_export(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__doc__ and module.__doc__.strip(), f"{name} has no module docstring"
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__"
    for export in module.__all__:
        value = getattr(module, export)
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue
        if not getattr(value, "__module__", "").startswith("ostinato_llamacpp"):
            continue
        assert inspect.getdoc(value), f"{name}.{export} has no docstring"
        if inspect.isclass(value):
            for attr, member in vars(value).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, property) or inspect.isfunction(member):
                    assert member.__doc__, f"{name}.{export}.{attr} has no docstring"
