"""The MCP plugin's public surface is deliberate: the package exports exactly these names,
every module has a docstring and ``__all__``, every exported name is documented, modules
stay small."""

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
