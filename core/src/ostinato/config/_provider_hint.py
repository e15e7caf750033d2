"""What to suggest for a provider nobody registered: a near installed one, then a package.

``olama`` is far likelier a typo of the installed ``ollama`` than a plugin named
``ostinato-olama``, so the nearest installed provider comes first (difflib's ratio), and
only then the package to install; a typo of a first-party provider that is not installed
suggests that provider's package instead of the misspelt one.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Final

__all__ = ["FIRST_PARTY_PROVIDERS", "nearest", "unknown_provider_fix"]

#: Providers served by the plugins published with ostinato (``ostinato-<name>``).
FIRST_PARTY_PROVIDERS: Final = ("anthropic", "llamacpp", "ollama", "openai")
_CUTOFF: Final = 0.75  # "olama"~"ollama" 0.91, "nope"~"openai" 0.6


def nearest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to ``name`` (difflib), or ``None`` when none is close."""
    matches = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=_CUTOFF)
    return matches[0] if matches else None


def unknown_provider_fix(
    provider: str, model_name: str, installed: Iterable[str], flag: str
) -> str:
    """The ``fix:`` text for ``provider:model_name``, which no plugin registered.

    ``flag`` is how the user names a model there (``--model`` or ``OSTINATO_MODEL=``).
    """
    close = nearest(provider, installed)
    if close is not None:
        return (
            f"did you mean {close}? ({flag}{close}:{model_name}); if not, install the plugin "
            f"serving {provider!r}: pip install ostinato-{provider}"
        )
    package = nearest(provider, FIRST_PARTY_PROVIDERS)
    if package is not None and package != provider:
        return f"did you mean {package}? install its plugin: pip install ostinato-{package}"
    return (
        "use an installed provider (`ostinato models` lists them), or install its plugin: "
        f"pip install ostinato-{provider}"
    )
