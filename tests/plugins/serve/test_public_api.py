"""``ostinato_serve`` exports exactly these names, all documented (see ``tests.fakes.public_api``)."""

from __future__ import annotations

import ostinato_serve
from tests.fakes.public_api import public_surface_tests

PACKAGE = {
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "ServeSettings",
    "__version__",
    "check_bind_address",
    "create_app",
    "is_loopback",
    "model_name_of",
}

SURFACE = public_surface_tests(ostinato_serve, PACKAGE)
test_the_package_exports_exactly_the_intended_names = SURFACE.exports
test_every_module_documents_itself_and_its_exports = SURFACE.documented
test_modules_stay_small = SURFACE.small
