"""Every distribution declares the metadata a published package needs — readme, license
(and ships its text), classifiers, project URLs — and every one has the same version,
read from the one place it is written.

What the declarations produce once built (the wheels' and sdists' metadata, the wheels
installed into a clean environment) is checked by ``make wheels-check``
(``test_built_wheels.py``).
"""

from __future__ import annotations

import importlib
import re

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

import ostinato
from tests.packaging.workspace import (
    LICENSE,
    REQUIRED_CLASSIFIERS,
    REQUIRED_URLS,
    ROOT,
    VERSION_FILE,
    Distribution,
    distributions,
    the_version,
)

DISTRIBUTIONS = distributions()
NAMES = {d.name for d in DISTRIBUTIONS}
each = pytest.mark.parametrize("dist", DISTRIBUTIONS, ids=str)


def test_the_workspace_has_core_and_every_plugin():
    assert DISTRIBUTIONS[0].where == "core"
    assert len(DISTRIBUTIONS) == 1 + len(list((ROOT / "plugins").glob("*/")))
    assert len(NAMES) == len(DISTRIBUTIONS)


def test_the_version_is_a_release_version():
    version = Version(the_version())
    assert str(version) == the_version(), "write the version in its normal form"
    assert ostinato.__version__ == the_version()


@each
def test_the_version_comes_from_cores_version_file(dist: Distribution):
    project = dist.project
    assert "version" not in project, (
        f"{dist}/pyproject.toml writes `version`; fix: make it dynamic and read it from "
        f"{VERSION_FILE.relative_to(ROOT)} ([tool.hatch.version] path)"
    )
    assert project.get("dynamic") == ["version"], f"{dist}: only the version is dynamic"
    source = dist.pyproject["tool"]["hatch"]["version"]
    assert set(source) == {"path"}, f"{dist}: [tool.hatch.version] is the file's path only"
    assert (dist.folder / source["path"]).resolve() == VERSION_FILE, (
        f"{dist}: [tool.hatch.version] path is {source['path']!r}, not core's version file"
    )


@each
def test_the_package_reports_the_same_version(dist: Distribution):
    module = importlib.import_module(dist.package)
    assert module.__version__ == the_version(), dist
    assert "__version__" in module.__all__, dist


@each
def test_the_build_backend_is_hatchling_with_license_files_support(dist: Distribution):
    system = dist.pyproject["build-system"]
    assert system["build-backend"] == "hatchling.build"
    # 1.27: the SPDX `license` expression and `license-files` (core metadata 2.4).
    assert system["requires"] == ["hatchling>=1.27"], dist


@each
def test_it_has_a_readme_of_its_own(dist: Distribution):
    assert dist.project.get("readme") == "README.md", dist
    readme = (dist.folder / "README.md").read_text(encoding="utf-8")
    assert readme.startswith(f"# {dist.name}\n"), f"{dist}/README.md starts with its name"
    assert dist.project.get("description", "").strip(), f"{dist}: a one-line description"
    # A package index shows the README alone: a relative link would lead nowhere there.
    relative = re.findall(r"\]\((?!https?:|mailto:|#)([^)\s]+)\)", readme)
    assert not relative, (
        f"{dist}/README.md links {relative} relatively; fix: link the project's pages by "
        "their full address (https://github.com/ostinato-ai/ostinato/blob/main/...)"
    )


@each
def test_it_declares_the_license_and_ships_its_text(dist: Distribution):
    assert dist.project.get("license") == "Apache-2.0", dist
    assert dist.project.get("license-files") == ["LICENSE"], dist
    copy = dist.folder / "LICENSE"
    assert copy.is_file(), f"{dist}/LICENSE is missing; fix: copy the repository's LICENSE"
    assert copy.read_bytes() == LICENSE.read_bytes(), (
        f"{dist}/LICENSE differs from the repository's LICENSE; fix: copy it again"
    )


def test_the_license_is_the_apache_license_2_0():
    text = LICENSE.read_text(encoding="utf-8")
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


@each
def test_its_classifiers_say_what_it_is_and_which_pythons_it_runs_on(dist: Distribution):
    classifiers = dist.project.get("classifiers", [])
    assert set(classifiers) >= REQUIRED_CLASSIFIERS, (
        f"{dist}: missing classifiers {sorted(REQUIRED_CLASSIFIERS - set(classifiers))}"
    )
    assert len(set(classifiers)) == len(classifiers), f"{dist}: a classifier twice"
    # The SPDX expression says the license; a license classifier too is an error (PEP 639).
    assert not [c for c in classifiers if c.startswith("License ::")], dist
    assert dist.project["requires-python"] == ">=3.11", dist
    pythons = [c.rpartition(":: ")[2] for c in classifiers if c.count("::") == 2]
    versions = [Version(p) for p in pythons if p[0].isdigit() and "." in p]
    assert versions and min(versions) == Version("3.11"), f"{dist}: {pythons}"
    assert classifiers == DISTRIBUTIONS[0].project["classifiers"], (
        f"{dist}: the classifiers differ from core's"
    )


@each
def test_its_project_urls_lead_to_the_project(dist: Distribution):
    urls = dist.project.get("urls", {})
    assert tuple(urls) == REQUIRED_URLS, f"{dist}: [project.urls] are {list(urls)}"
    assert all(url.startswith("https://") for url in urls.values()), dist
    core_urls = DISTRIBUTIONS[0].project["urls"]
    for label in ("Documentation", "Source", "Issues"):
        assert urls[label] == core_urls[label], f"{dist}: {label} differs from core's"
    if dist.where != "core":
        assert urls["Homepage"] == f"{core_urls['Source']}/tree/main/{dist.where}", dist


@each
def test_its_dependencies_on_the_workspace_are_pinned_compatibly(dist: Distribution):
    version = Version(the_version())
    next_minor = Version(f"{version.major}.{version.minor + 1}.0")
    own = [Requirement(r) for r in dist.project.get("dependencies", [])]
    own = [r for r in own if r.name in NAMES]
    if dist.where != "core":
        assert "ostinato" in {r.name for r in own}, f"{dist} depends on ostinato"
    for requirement in own:
        specifier = requirement.specifier
        assert str(specifier) == f"~={version}", (
            f"{dist}: {requirement} is not pinned to the release it is built with; "
            f"fix: `{requirement.name}~={version}`"
        )
        assert version in specifier and next_minor not in specifier
