"""A fake ``llamacpp`` plugin standing for the local default model.

Its model answers "Hi from the local model."; its ``local`` command records every call
(in the module's ``calls``, and as a line of the file that ``LOCAL_CALLS`` names, when
that variable is set, for a CLI running in a child process), answers ``status`` "not
ready" (exit 1) until ``setup`` has run, and ``setup`` says "setting up..." on standard
error and exits with the code :func:`install` was given.
"""

from __future__ import annotations

from tests.fakes.distributions import FakeDistributions

__all__ = ["install"]

_SOURCE = """
    import os
    import sys
    from pathlib import Path

    from ostinato.plugins import hookimpl
    from ostinato.testing import ScriptedChatModel

    calls = []

    @hookimpl
    def register_chat_models(register):
        register("llamacpp", lambda context, name: ScriptedChatModel(["Hi from the local model."]))

    @hookimpl
    def register_commands(register):
        def run(argv):
            calls.append(argv)
            if "LOCAL_CALLS" in os.environ:
                with Path(os.environ["LOCAL_CALLS"]).open("a") as log:
                    log.write(" ".join(argv) + "\\n")
            if argv == ["status"]:
                print("not ready")
                return 0 if ["setup"] in calls else 1
            print("setting up...", file=sys.stderr)
            return {setup_exit}

        register("local", "a local model", run)
"""


def install(distributions: FakeDistributions, setup_exit: int = 0) -> str:
    """Install the plugin (as ``ostinato-llamacpp``); returns its module's name."""
    return distributions.plugin("llamacpp", _SOURCE.format(setup_exit=setup_exit))
