"""``ModelDeclaration``: what an HTTP adapter declares once on its class, the rest derived.

A model class declares its provider name, default base URL and (as its parameter) its
options class; from them come the settings prefix named in errors, the default options,
and the user agent (the name and ``__version__`` of the package defining the class). A
constructor argument left out takes the declared value; one with no declared value is
required. This module knows nothing of HTTP.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, ClassVar, get_args

from ostinato.prompt import ChatOptions

__all__ = ["ModelDeclaration"]


class ModelDeclaration:
    """The class-level declarations of an HTTP chat model, and the defaults derived from them."""

    #: The name errors carry unless the model is given another (``openai``); a subclass
    #: that declares it and no ``env_prefix`` gets ``OSTINATO_<PROVIDER>_``.
    provider: ClassVar[str] = "http"
    #: The API root when no ``base_url`` is given (``None``: ``base_url`` is required).
    default_base_url: ClassVar[str | None] = None
    #: Makes the default options when none are given: by default the options class the
    #: subclass names as its parameter (``HttpxChatModel[MyOptions]``).
    options_type: ClassVar[Callable[[], ChatOptions] | None] = None
    #: The ``user-agent`` header: by default ``<distribution>/<version>`` of the package
    #: defining the subclass (``ostinato-openai/0.1.0``, from its ``__version__``); a
    #: package without one keeps the inherited value.
    user_agent: ClassVar[str] = "ostinato"
    #: The prefix of the provider's settings, named in errors (``OSTINATO_OPENAI_``).
    env_prefix: ClassVar[str] = "OSTINATO_"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = vars(cls)
        if "options_type" not in declared:
            for base in declared.get("__orig_bases__", ()):
                options = (*get_args(base), None)[0]
                if isinstance(options, type) and issubclass(options, ChatOptions):
                    cls.options_type = options
        if "provider" in declared and "env_prefix" not in declared:
            cls.env_prefix = f"OSTINATO_{cls.provider.upper()}_"
        if "user_agent" not in declared:
            package = sys.modules.get(cls.__module__.partition(".")[0])
            version = getattr(package, "__version__", None)
            if isinstance(version, str) and package is not None:
                cls.user_agent = f"{package.__name__.replace('_', '-')}/{version}"

    @classmethod
    def _declared(cls, attribute: str, argument: str) -> Any:
        """The declared ``attribute``, standing in for the constructor's ``argument``.

        Raises:
            TypeError: the class declares none.
        """
        value = getattr(cls, attribute)
        if value is None:
            raise TypeError(
                f"{cls.__name__}() needs {argument}=...: the class declares no {attribute}\n"
                f"fix: pass {argument}, or set {attribute} on {cls.__name__}"
            )
        return value
