"""``python -m ostinato.cli``: the same as the ``ostinato`` command."""

import sys

from ostinato.cli import main

sys.exit(main())
