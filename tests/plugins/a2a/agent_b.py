"""Agent B of the delegation tests, in a process of its own: ``ostinato serve``'s app on
the scripted weather agent (``weather_progress``, which reports its progress; ``pay`` needs approval), behind the token given
as the first argument, on a loopback port. It prints its URL, then serves until its
standard input closes."""

from __future__ import annotations

import sys

from ostinato_serve import ServeSettings, create_app
from tests.plugins.serve.served import agent, pay, weather_progress
from tests.uvicorn_loopback import serve_on_loopback


def main() -> None:
    """Serve agent B until standard input closes."""
    app = create_app(
        agent(), tools=[weather_progress, pay], settings=ServeSettings(token=sys.argv[1])
    )
    with serve_on_loopback(app) as url:
        print(url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
