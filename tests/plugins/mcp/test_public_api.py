"""``ostinato_mcp`` exports exactly these names, all documented (see ``tests.fakes.public_api``)."""

from __future__ import annotations

import ostinato_mcp
from tests.fakes.public_api import public_surface_tests

PACKAGE = {
    "DEFAULT_MAX_RESULT_CHARS",
    "McpConfig",
    "McpConfigError",
    "McpServer",
    "McpServerConfig",
    "McpSettings",
    "McpTool",
    "McpToolMetadata",
    "McpToolset",
    "__version__",
    "load_mcp_config",
    "parse_mcp_config",
}

SURFACE = public_surface_tests(ostinato_mcp, PACKAGE)
test_the_package_exports_exactly_the_intended_names = SURFACE.exports
test_every_module_documents_itself_and_its_exports = SURFACE.documented
test_modules_stay_small = SURFACE.small
