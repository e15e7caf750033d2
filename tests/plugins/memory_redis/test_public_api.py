"""``ostinato_memory_redis`` exports exactly these names, all documented (see ``tests.fakes.public_api``)."""

from __future__ import annotations

import ostinato_memory_redis
from tests.fakes.public_api import public_surface_tests

PACKAGE = {
    "DEFAULT_KEY_PREFIX",
    "RedisChatMemoryRepository",
    "RedisMemorySettings",
    "__version__",
    "create_redis_repository",
}

SURFACE = public_surface_tests(ostinato_memory_redis, PACKAGE, readme="memory-redis")
test_the_package_exports_exactly_the_intended_names = SURFACE.exports
test_every_module_documents_itself_and_its_exports = SURFACE.documented
test_modules_stay_small = SURFACE.small
test_the_readme_example_runs_and_prints_what_it_says = SURFACE.readme
