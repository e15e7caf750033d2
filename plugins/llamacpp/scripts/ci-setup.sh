#!/usr/bin/env bash
# CI step before `make test`: build llama-server and assemble the bundled model, so the
# llamacpp end-to-end test (tests/plugins/llamacpp/test_end_to_end.py) can run; without
# them that test fails rather than skip (SKIP_LLAMACPP_E2E=1 skips it on purpose).
#
# Cached in $XDG_CACHE_HOME/ostinato/llamacpp (default ~/.cache/ostinato/llamacpp, or
# $OSTINATO_LLAMACPP_CACHE_DIR): on a fresh machine about 12-20 minutes on 2 cores
# (mostly the compile), on the same machine again about 2 s (it re-verifies the model).
# Needs cmake, make or ninja, and a C/C++ compiler.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PYTHON="${PYTHON:-python3}"
"$PYTHON" -m uv --version >/dev/null 2>&1 || "$PYTHON" -m pip install --quiet uv
exec "$PYTHON" -m uv run --locked --all-packages ostinato local setup --jobs "${LLAMACPP_JOBS:-2}"
