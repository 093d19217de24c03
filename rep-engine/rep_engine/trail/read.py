"""Reading an audit trail (``REP_AUDIT_FILE``, schema v1 of ``docs/audit-trail.md``): its
lines, plain or gzip-compressed, checked against the hash chain, and its snapshots (pure).

Every line carries ``prev``, the SHA-256 of the previous line's exact bytes (``""`` on the
first line of the file). :class:`Trail` reads the lines in order and says, line by line,
where the chain breaks: an edited line breaks the link of the line after it, a deleted
line the link of the line that followed it, a cut file shows as a last line without its
newline or a gzip stream without its end. The last line is protected by nothing after it:
:attr:`ChainState.head` (the hash of the last line) is what an auditor writes down to
detect a later change of it.

The snapshots beside a trail (``<trail>.d/<sha256>``, or ``<sha256>.gz``) are read by
:class:`SnapshotStore`, which checks that their bytes still hash to their name, and keeps
the documents parsed from them in a bounded cache; :class:`Trail` opens the store of its
trail.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

from rep_engine.records import text
from rep_engine.trail.file import EMPTY_SHA256, SCHEMAS, TrailFileError, last_line, snapshot_dir

#: The line types of schema v1 (``repair``: written by ``audit repair`` after a cut;
#: ``item``: by ``recheck``, one per stored item re-checked), and of schema 3 (``setting``
#: after a run line, ``site`` and ``head`` after an end line).
TYPES: Final = frozenset(
    {"run", "snapshot", "url", "file", "end", "repair", "item", "setting", "site", "head"}
)


class TrailError(Exception):
    """The input cannot be read as a trail at all (missing file, not a trail): one line."""


def unknown_schema(record: dict[str, Any]) -> str:
    """Why a ``run`` line's ``schema`` is none this reader knows (``""``: it knows it):
    a newer release's trail, whose lines it would misread (docs/audit-trail.md, "Schema
    versions")."""
    if record.get("schema") in SCHEMAS:
        return ""
    known = f"{', '.join(map(str, SCHEMAS[:-1]))} and {SCHEMAS[-1]}"
    return (f"run {text(record.get('run'))[:8]}: schema {record.get('schema')!r}; this "
            f"reader knows schemas {known}")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the trail, as stored."""

    #: 1-based line number in the (uncompressed) file.
    number: int
    raw: bytes
    #: The JSON object, ``None`` when the line is not one.
    record: dict[str, Any] | None
    #: ``""``, or why the line breaks the chain or cannot be read.
    problem: str = ""

    @property
    def type(self) -> str:
        return self.type_of(self.record) if self.record is not None else ""

    @staticmethod
    def type_of(record: dict[str, Any]) -> str:
        return text(record.get("type"))


@dataclass
class ChainState:
    """The chain as read so far."""

    #: SHA-256 hex of the last line read (``""`` before the first).
    head: str = ""
    lines: int = 0
    #: Problems of the file as a whole (cut, unreadable tail), in the order found.
    problems: list[str] = field(default_factory=list)


def json_object(raw: bytes) -> dict[str, Any] | None:
    """A line's JSON object (``None``: not one, or nested too deep to read), for ``verify``
    and ``audit repair``."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):  # UnicodeDecodeError too
        return None
    return value if isinstance(value, dict) else None


class Trail:
    """A trail file read line by line (constant memory), its chain checked as it goes."""

    def __init__(
        self, path: str | Path, also: Sequence[str | Path] = (), any_schema: bool = False
    ) -> None:
        """``also``: other trails read with this one (several workers' trails): a
        snapshot missing from this trail's folder is looked for in theirs too.
        ``any_schema``: a run of a schema this reader does not know is read too
        (``verify``, which reports it), not refused."""
        path = self.path = Path(path)
        self.any_schema = any_schema
        self.compressed = path.name.endswith(".gz")
        self.chain = ChainState()
        others = [snapshot_dir(Path(other)) for other in also if Path(other) != path]
        self.snapshots = SnapshotStore(snapshot_dir(path), others=others)
        if not path.is_file():
            raise TrailError(f"{path}: {'not a file' if path.exists() else 'no such file'}")

    def lines(self) -> Iterator[Line]:
        """Every line, each with the problem of its chain link (if any). Raises
        :class:`TrailError` when the file is not a trail: unreadable, not gzip while
        named ``.gz``, or no line of it is a trail line. A cut line (the end of the file
        inside it: no newline, or a gzip member without its end) is no record: its
        ``record`` is ``None``, whatever its bytes hold. A run of a schema it does not
        know (:func:`unknown_schema`) is a :class:`TrailError` too, unless
        :attr:`any_schema`: never read as if it were one it knows."""
        self.chain = chain = ChainState()
        seen_trail_line = False
        for raw, whole in self._raw_lines():
            chain.lines += 1
            record = json_object(raw) if whole else None
            problem = self._link_problem(chain, raw, record, whole)
            if record is not None and Line.type_of(record) in TYPES:
                seen_trail_line = True
                run = Line.type_of(record) == "run" and not self.any_schema
                if run and (unknown := unknown_schema(record)):
                    raise TrailError(f"{self.path}: line {chain.lines}: {unknown}: a newer "
                                     "release wrote it; read it with that release")  # fmt: skip
            chain.head = hashlib.sha256(raw).hexdigest()
            yield Line(chain.lines, raw, record, problem)
        if not seen_trail_line:
            what = "empty" if chain.lines == 0 else "not an audit trail"
            raise TrailError(f"{self.path}: {what}")

    @staticmethod
    def _link_problem(
        chain: ChainState, raw: bytes, record: dict[str, Any] | None, whole: bool
    ) -> str:
        number = chain.lines
        if not whole:
            if not raw.endswith(b"\n"):
                chain.problems.append(f"line {number}: the file is cut (no newline at its end)")
            return "cut: the line has no end"
        if record is None:
            return "not a JSON object: the line was changed or damaged"
        prev = record.get("prev")
        if prev == chain.head:
            return ""
        if chain.head == "":
            return f"the first line's prev should be empty, it is {str(prev)[:16]!r}"
        return (
            f"chain broken: prev does not match line {number - 1} "
            "(a line before it was changed, deleted or inserted)"
        )

    def _raw_lines(self) -> Iterator[tuple[bytes, bool]]:
        """Each line's bytes (uncompressed) and whether it is whole."""
        try:
            with self.path.open("rb") as file:
                if not self.compressed:
                    for raw in file:
                        yield raw, raw.endswith(b"\n")
                    return
                yield from self._gzip_lines(file)
        except OSError as error:
            raise TrailError(f"{self.path}: cannot read: {error.strerror or error}") from None

    def _gzip_lines(self, file: IO[bytes]) -> Iterator[tuple[bytes, bool]]:
        end = GzipEnd()
        pending = b""
        for chunk in gzip_members(file, end):
            pending += chunk
            start = 0
            while (newline := pending.find(b"\n", start)) >= 0:
                yield pending[start : newline + 1], True
                start = newline + 1
            pending = pending[start:]
        if end.how == "damaged" and end.members == 0:
            raise TrailError(f"{self.path}: not a gzip file")
        if pending + end.rest:
            yield pending + end.rest, False
        if end.how == CUT:
            self.chain.problems.append(
                "the gzip stream is cut (its last member has no end): the file was truncated"
            )
        elif end.how == "damaged":
            self.chain.problems.append(f"after line {self.chain.lines}: damaged gzip data")


#: Compressed bytes handed to the decompressor at a time: a member (one line) is a few
#: hundred bytes, and what follows a member's end in them is copied at each end.
_GZIP_STEP: Final = 8192
_GZIP_CHUNK: Final = 1 << 20


@dataclass(frozen=True)
class Tail:
    """What a crawl appending to a trail needs of it (:func:`tail_of`)."""

    #: The highest request number of its records (the number an ``id`` ends with, after
    #: its last ``-``; ``0``: none): a crawl appending to it numbers its own after it, so
    #: that a request id is the trail's alone, whichever run wrote it.
    last_request: int = 0
    #: The id of the run its last line belongs to when that is no ``end`` (or ``repair``,
    #: or ``head``) line: a run left without its end line (``""``: none).
    open_run: str = ""


def tail_of(path: Path) -> Tail:
    """The :class:`Tail` of the trail at ``path``. A run's ``end`` line (and its ``head``)
    says the highest request number (``last_request``): read from the trail's last line
    when it is one; else every line is read (a run killed, a repair, a trail written
    before the end line said it)."""
    try:
        last = json_object(last_line(path) or b"")
    except TrailFileError:
        last = None
    kind = Line.type_of(last) if last is not None else ""
    ended = ("end", "repair", "head")  # a head ends a run too, and says its last_request
    open_run = text(last.get("run")) if last is not None and kind not in ended else ""
    said = last.get("last_request") if last is not None and kind in ("end", "head") else None
    if isinstance(said, int) and not isinstance(said, bool) and said >= 0:
        return Tail(said, open_run)
    highest = 0
    try:
        for line in Trail(path).lines():
            record = line.record or {}
            number = text(record.get("id")).rpartition("-")[2]
            if line.type == "url" and number.isdigit():
                highest = max(highest, int(number))
    except TrailError:
        pass  # a trail that cannot be read: said by the checks before the crawl
    return Tail(highest, open_run)


#: How a gzip file that ends inside a member ends (:attr:`GzipEnd.how`).
CUT: Final = "cut"


@dataclass
class GzipEnd:
    """How the members of a gzip file end (:func:`gzip_members`)."""

    #: The offset in the file after the last whole member.
    end: int = 0
    #: Whole members read.
    members: int = 0
    #: ``""``: the file ends after a whole member; :data:`CUT`: it ends inside a member;
    #: ``"damaged"``: bytes that are not gzip data follow the last whole member.
    how: str = ""
    #: The text decompressed from the member cut or damaged (never checked: its CRC and
    #: size were not reached).
    rest: bytes = b""


def gzip_members(file: IO[bytes], end: GzipEnd) -> Iterator[bytes]:
    """The text of each whole member of the gzip file ``file`` (read from its start), in
    order: a member whose end was read, its CRC-32 and size checked by zlib. ``end`` says
    where the whole members end and how the file ends. One reader for ``verify`` and
    ``audit repair``, so that the two agree on which lines are whole."""
    buffer, position, base = b"", 0, file.tell()
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    text: list[bytes] = []
    started = False  # bytes of the current member were read
    while True:
        if position >= len(buffer):
            base += len(buffer)
            buffer, position = file.read(_GZIP_CHUNK), 0
            if not buffer:
                if started:
                    end.how, end.rest = CUT, b"".join(text)
                return
        piece = memoryview(buffer)[position : position + _GZIP_STEP]
        try:
            text.append(decompressor.decompress(piece))
        except zlib.error:
            end.how, end.rest = "damaged", b"".join(text)
            return
        started = True
        if not decompressor.eof:
            position += len(piece)
            continue
        position += len(piece) - len(decompressor.unused_data)
        end.end, end.members = base + position, end.members + 1
        yield b"".join(text)
        text, started = [], False
        decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)


# The snapshots beside a trail.


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
