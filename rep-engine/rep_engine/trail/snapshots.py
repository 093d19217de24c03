"""The snapshots beside a trail (``<trail>.d/<sha256>``, or ``<sha256>.gz``), read by
:class:`SnapshotStore`, which checks that their bytes still hash to their name, and keeps
the documents parsed from them in a bounded cache (pure). :class:`~rep_engine.trail.read.Trail`
opens the store of its trail."""

from __future__ import annotations

import gzip
import hashlib
import random
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from rep_engine.trail.file import EMPTY_SHA256


def is_sha256(name: object) -> bool:
    """Whether ``name`` is a SHA-256 in lowercase hex (a snapshot's name)."""
    return isinstance(name, str) and len(name) == 64 and all(c in "0123456789abcdef" for c in name)


def parsed_size(body: bytes) -> int:
    """Bytes a parsed document is counted for in the cache of :class:`SnapshotStore`:
    what a parsed robots.txt keeps (:func:`rep_engine.fetch.kinds.robots_size`), an
    over-estimate for the smaller tdmrep.json and RSL documents."""
    return 2048 + 6 * len(body)


class SnapshotStore:
    """The snapshot bodies beside a trail, each read at most once per check while its
    parsed document stays in the cache.

    The parsed documents are kept up to :attr:`max_bytes` (:func:`parsed_size` each): a
    trail's records come in crawl order, interleaving origins, so every origin's document
    is needed again and again. A bound on the number of documents (256, emptied when
    full) made a trail of 300 origins parse each document for each record. Within the
    bound in bytes (about 200,000 median robots.txt files, 12,000 of the mean size of
    real ones) nothing is parsed twice. Beyond it, of two documents taken at random (a seeded
    generator: the same work each run), the one parsed later makes room: the least
    recently used would be, under origins taken in turn, the very next one needed, so
    that every record missed; this keeps a stable part of them while the crawl's origins
    stay, and lets the old ones go when they change (in a simulation with room for half
    the origins: 73 % of the records parse again under origins in turn, 75 % under a
    moving set of origins, against 100 % least recently used out)."""

    #: The default bound of the cache of parsed documents, in :func:`parsed_size` bytes.
    #: No more than the former bound of 256 documents could take (256 files of 500 KiB:
    #: about 700 MB); a trail of 10,000 origins of real robots.txt files needs about 410.
    MAX_PARSED_BYTES: Final = 512 * 1024 * 1024

    def __init__(
        self, directory: Path, max_bytes: int = MAX_PARSED_BYTES, others: Sequence[Path] = ()
    ) -> None:
        self.directory = directory
        #: The snapshot folders of the other trails read with this one, searched in turn
        #: for a body this one lacks (a worker's record naming a snapshot another stored).
        self.others = list(others)
        #: What a missing body is when no snapshot folder is there at all (a trail copied
        #: without its ``.d`` folder): one cause for them all; ``""`` when one is there.
        self.no_folder = ""
        if not any(folder.is_dir() for folder in (directory, *self.others)):
            self.no_folder = f"missing: there is no snapshot folder {directory}"
        #: sha256 -> the problem with its file ("" when it is sound).
        self.checked: dict[str, str] = {}
        self.max_bytes = max_bytes
        #: (sha256, how) -> (the parsed document, its size, its place in ``_keys``, the
        #: number of its parse).
        self._parsed: dict[tuple[str, str], tuple[Any, int, int, int]] = {}
        self._keys: list[tuple[str, str]] = []
        self._bytes = 0
        self._random = random.Random(0)
        #: Documents parsed so far (a document parsed again after it left the cache
        #: counts again).
        self.parses = 0

    def body(self, sha256: str) -> bytes | None:
        """The body named ``sha256``; ``None`` when it is missing or its bytes no longer
        hash to its name (:attr:`checked` says which)."""
        if not is_sha256(sha256):
            self.checked[str(sha256)] = "not a SHA-256 name"
            return None
        if sha256 == EMPTY_SHA256:
            self.checked[sha256] = ""
            return b""
        body = self._read(sha256)
        if body is None:
            where = f"{self.directory}" + " or ".join(["", *map(str, self.others)])
            self.checked[sha256] = self.no_folder or f"missing: no file {sha256} in {where}"
            return None
        if hashlib.sha256(body).hexdigest() != sha256:
            self.checked[sha256] = "altered: its bytes no longer hash to its name"
            return None
        self.checked[sha256] = ""
        return body

    def sound(self, sha256: str) -> bool:
        """Whether the body named ``sha256`` is present and unaltered (checked once)."""
        if sha256 not in self.checked:
            self.body(sha256)
        return not self.checked.get(sha256)

    def _read(self, sha256: str) -> bytes | None:
        found = None
        for directory in (self.directory, *self.others):
            body = self._read_in(directory, sha256)
            if body is not None and hashlib.sha256(body).hexdigest() == sha256:
                return body
            found = body if found is None else found
        # none sound: this folder's copy (or another's), so that the check says altered
        return found

    @staticmethod
    def _read_in(directory: Path, sha256: str) -> bytes | None:
        try:
            return (directory / sha256).read_bytes()
        except OSError:
            pass
        try:
            return gzip.decompress((directory / f"{sha256}.gz").read_bytes())
        except (OSError, EOFError, zlib.error):
            return None

    def parsed(self, sha256: str, how: str, parse: Any) -> Any:
        """``parse(body)`` for the body named ``sha256``, cached under ``(sha256, how)``;
        ``None`` when the body is unusable."""
        key = (sha256, how)
        cached = self._parsed.get(key)
        if cached is not None:
            return cached[0]
        body = self.body(sha256)
        value = None
        if body is not None:
            value = parse(body)
            self.parses += 1
        size = parsed_size(body or b"")
        while self._keys and self._bytes + size > self.max_bytes:
            one, two = (self._random.randrange(len(self._keys)) for _ in range(2))
            later = self._parsed[self._keys[one]][3] > self._parsed[self._keys[two]][3]
            self._evict(one if later else two)
        self._parsed[key] = (value, size, len(self._keys), self.parses)
        self._keys.append(key)
        self._bytes += size
        return value

    def _evict(self, place: int) -> None:
        keys = self._keys
        key, last = keys[place], keys.pop()
        self._bytes -= self._parsed.pop(key)[1]
        if last != key:
            keys[place] = last
            value, size, _, number = self._parsed[last]
            self._parsed[last] = (value, size, place, number)
