"""The captures of a WARC file (pure, the standard library's zlib): its records indexed
in one pass (:func:`records`: where each ``response`` record is, a :class:`Ref`, nothing
of its payload decoded), each read again by offset when it decides
(:meth:`WarcFiles.load`) as the crawl would have had its answer (:class:`Capture`), by its
target URI as origins are compared (:func:`capture_key`, whatever its scheme's case), and
each ``revisit`` record as a capture of its own date whose answer is the record's it
refers to (:func:`revisited`); the newest of each URL is read (one whose ``WARC-Date``
cannot be read: :func:`present`; several of one second that disagree:
:func:`of_one_date`; every capture of several WARCs: :class:`~rep_recheck.asof.Timeline`).


A file that is not a WARC, or is cut (a record shorter than its ``Content-Length``, a
gzip member cut short, the last one too), is :class:`WarcError`: nothing is decided
from half a file. One
capture that cannot be read (a status line without a status, a payload that cannot be
decoded, a compressed stream corrupt anywhere: :mod:`~rep_recheck.payload`) is a
document not had, as a download that failed is (a robots.txt so refuses its origin's
items: RFC 9309 §2.3.1.4; another document leaves them unknown), and the rest of the
file is read. A capture is read by its status, whatever its body: only a 2xx's
body is read (SPEC §4), so only a 2xx's is held to its length (a 404 page, a 301's
"moved" are never data lost). A 2xx payload cut short (``WARC-Truncated``, a cut chunk
or compressed stream, a record whose WARC block runs on past its ``Content-Length`` by
one line, which warcio only warns of) is read as a download stopped: the body before the
cut, said to be cut (a cut tdmrep.json keeps its entries before the cut, a cut RSL license refuses
AI use), never as the whole document; cut before 500 KiB, the least a crawler reads (RFC
9309 §2.5), its lines may refuse an item, never allow one
(:meth:`~rep_recheck.rechecker.Rechecker.decide`). One that lost data
(``WARC-Truncated: disconnect``, or shorter than its ``Content-Length`` without saying it
is cut) is not had, as a download that lost data is in a crawl.
"""

from __future__ import annotations

import math
import os
import re
import weakref
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Final, NamedTuple
from urllib.parse import urlsplit

from rep_engine.records import seconds_of
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from rep_engine.urls.origins import origin_of
from rep_recheck.payload import Undecodable, decode


class WarcError(Exception):
    """The file cannot be read as a whole WARC: one line saying why."""


class Capture(NamedTuple):
    """One ``response`` record: the answer to one URL (a tuple: made once an origin)."""

    status: int
    location: str | None
    cache_control: str | None
    #: The payload (at most 500 KiB and one byte), as a zlib stream (:func:`zlib_of`: a
    #: small one stored, not compressed), as the crawl's cache entries keep a body.
    body_zlib: bytes
    #: WARC-Date, POSIX seconds, UTC unless it names its offset (WARC 1.1 §5.4 writes it
    #: in UTC; ``--as-of`` reads a date without one so too), never the machine's zone
    #: (``None``, never 0.0, which would make it older than every other: it cannot be
    #: read, its date is unknown: :func:`present`).
    date: float | None
    record_id: str
    #: The payload is a part of the document (``WARC-Truncated``, a cut stream).
    truncated: bool = False
    #: Why the capture cannot be read (``""``: it can): the document was not had.
    problem: str = ""
    #: The problem is the archive's, not the site's answer (a revisit whose record the
    #: WARCs do not hold): read as a document not captured, never as a download that
    #: failed (which, for a robots.txt, refuses: RFC 9309 §2.3.1.4).
    gap: bool = False
    #: Its ``WARC-Payload-Digest`` (a revisit's: that of the payload it repeats).
    digest: str = ""
    #: A ``revisit`` record's reference (WARC 1.1 §6.7), read by :func:`revisited`: the
    #: record it names (``WARC-Refers-To``), the URI that record is of
    #: (``WARC-Refers-To-Target-URI``, else the revisit's own, as :func:`capture_key`
    #: spells it; ``""``: not a revisit) and its date (``WARC-Refers-To-Date``).
    refers_to: str = ""
    refers_uri: str = ""
    refers_date: float | None = None


def capture_key(uri: str) -> str:
    """A capture's target URI as the documents are looked up: its origin as origins are
    compared (:func:`~rep_engine.urls.origins.origin_of`: the host lowercased and in IDNA,
    the scheme's default port dropped, no userinfo), then its path and query as written
    (``http://A.EXAMPLE:80/robots.txt`` is ``http://a.example/robots.txt``). A URI with
    no origin is kept as it is."""
    if _AS_KEYED(uri) is not None:  # the usual URI, already as it is looked up
        return uri
    origin = origin_of(uri)
    if origin is None:
        return uri
    try:
        parts = urlsplit(uri.strip())
    except ValueError:
        return uri
    query = f"?{parts.query}" if parts.query else ""
    return f"{origin}{parts.path or '/'}{query}"


#: A URI :func:`capture_key` leaves as it is: http(s), a host as
#: :func:`~rep_engine.urls.origins.origin_of` reads one off the start of a URL
#: (lowercase ASCII letters, digits and ``-`` in labels joined by single dots), no
#: userinfo or port, then a path of printable ASCII with no ``#`` or space, and a query
#: that is not empty (``urlsplit`` drops an empty one, and a fragment).
_AS_KEYED: Final = re.compile(
    r"https?://[a-z0-9-]+(?:\.[a-z0-9-]+)*/[\x21-\x22\x24-\x3e\x40-\x7e]*(?:\?[\x21-\x22\x24-\x7e]+)?"
).fullmatch


def present(dated: Capture | None, undated: Sequence[Capture]) -> Capture | None:
    """The capture a URL's present answer is read from, of its newest dated capture
    (``None``: none) and its captures whose ``WARC-Date`` cannot be read (in the files'
    order), read so that no "no" is lost: an undated capture is not known to be older or
    newer than any other, so it is read only when every capture of the URL answers as it
    does (the newest dated one, or alone the last undated one), else the document is not
    had (a capture with a :attr:`~Capture.problem`: a robots.txt so refuses its items,
    as :func:`of_one_date` reads it). Never read as of a date (``--as-of``, ``then``)."""
    if not undated:
        return dated
    last = undated[-1]
    if all(_answer(one) == _answer(last) for one in (*undated, *([dated] if dated else []))):
        return dated if dated is not None else last
    beside = ""
    if dated is not None and dated.date is not None:
        beside = f" and one dated {capture_time(dated.date)}"
    problem = (f"{len(undated):,} capture(s) of an unreadable WARC-Date{beside} answer "
               "otherwise: which answer is the newest is not known")  # fmt: skip
    return Capture(last.status, None, None, b"", None, last.record_id, problem=problem)


def alike(date: float) -> float:
    """The second a capture's date (POSIX seconds) is in: captures in one second are
    dated alike. A ``WARC-Date`` written to the second (WARC/1.0's, §5.4) may be any time
    in that second, so one of the same second written finer (``.500Z``) is not known to
    be later or earlier; two finer ones in one second are taken as alike too (no "no"
    is lost: only a document not had)."""
    return float(math.floor(date))


def _dated(capture: Capture) -> float:
    """A dated capture's date."""
    assert capture.date is not None  # only dated captures are grouped by date
    return capture.date


def of_one_date(newest: Sequence[Capture]) -> Capture:
    """The capture a URL's answer at a date is read from, of its captures dated alike
    (:func:`alike`: ``newest``, oldest first, captures of one date in the files' order;
    at least one). Captures of one second that answer otherwise are not known to be in
    any order, so neither is read as the later: the document is not had, as
    :func:`present` reads captures of an unreadable date that disagree (a robots.txt not
    had refuses every item of its origin, the crawl's give-up verdict; another
    document's items are unknown). Never decided by the order of ``--documents``:
    whichever says "no", no "no" is lost."""
    last = newest[-1]
    if all(_answer(one) == _answer(last) for one in newest[:-1]):
        return last
    assert last.date is not None  # captures of one date
    problem = (f"{len(newest):,} captures dated alike, {capture_time(last.date)}, answer "
               "otherwise: which answer is the newest is not known")  # fmt: skip
    return Capture(last.status, None, None, b"", last.date, last.record_id, problem=problem)


def _answer(capture: Capture) -> tuple[object, ...]:
    """What a capture answered, its date aside."""
    return (capture.status, capture.location, capture.cache_control, capture.body_zlib,
            capture.truncated, capture.problem)  # fmt: skip


def capture_time(when: float) -> str:
    """A capture's date (POSIX seconds) as the evidence says it: ISO 8601 UTC, to the
    second."""
    return datetime.fromtimestamp(when, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Ref(NamedTuple):
    """A ``response`` record as the index keeps it (:func:`records`): where to read it
    again (:meth:`WarcFiles.load`), or while the records kept are small (a robots.txt
    WARC of 100,000 origins), the record itself as it was inflated (no copy); never what
    it says: no payload is decoded for a capture that never decides."""

    date: float | None
    record_id: str
    #: Where it is, in one number (:func:`ref_of`; about 250 bytes a record in all, a
    #: million origins' robots.txt captures in memory): its WARC's number in the files
    #: read, the record's offset and length there (its gzip member's, in a file
    #: compressed record by record), and whether its WARC block runs on past its
    #: ``Content-Length`` (read as cut there); or the record itself, kept: its block,
    #: whether it runs on past its length, its ``WARC-Truncated`` and
    #: ``WARC-Payload-Digest`` (:data:`KEPT_BYTES` of blocks at most, over every WARC).
    where: int | tuple[bytes, bool, str | None, str]

    @property
    def file(self) -> int:
        assert isinstance(self.where, int)  # not kept: read again
        return self.where >> 105

    @property
    def offset(self) -> int:
        assert isinstance(self.where, int)
        return (self.where >> 41) & _OFFSET

    @property
    def size(self) -> int:
        assert isinstance(self.where, int)
        return (self.where >> 1) & _SIZE


#: The most a :class:`Ref`'s offset and length hold (64 bits, 40 bits).
_OFFSET: Final = (1 << 64) - 1
_SIZE: Final = (1 << 40) - 1


def ref_of(
    date: float | None, record_id: str, file: int, offset: int, size: int, short: bool
) -> Ref:
    """A :class:`Ref` of these."""
    return Ref(date, record_id, (((file << 64 | offset) << 40 | size) << 1) | short)


#: The bytes of records the index keeps as they were inflated, over every WARC read (a
#: robots.txt record is about 1.5 KB: a WARC of 90,000 of them), read again from their
#: WARC past it.
KEPT_BYTES: Final = 128 * 1024 * 1024


def records(
    path: str | Path,
    number: int = 0,
    kinds: Counter[str] | None = None,
    room: list[int] | None = None,
) -> Iterator[tuple[str, Ref | Capture]]:
    """Each ``response`` record of an http(s) URI (a :class:`Ref`) and each ``revisit``
    record (a :class:`Capture` to read with :func:`revisited`) of the WARC at ``path``,
    the ``number``-th read, in the file's order, with its target URI as
    :func:`capture_key` spells it (``kinds``: counts each record's ``WARC-Type``;
    ``room``: the bytes of records still to keep, :data:`KEPT_BYTES`, spent). Every
    record is read to its end and held to its ``Content-Length``; a file cut anywhere,
    its last gzip member too, is :class:`WarcError` (after the records before the cut,
    which a caller keeps only once the whole file is read), and so is a file
    gzip-compressed whole, which no WARC reader reads (:data:`WHOLE_GZIP`)."""
    count = 0
    for at, size, raw in _raw_records(path):
        count += 1
        head, start, stop, short = _split_record(path, raw, count, _INDEXED)
        kind, uri = head.get("warc-type", ""), head.get("warc-target-uri", "").strip("<>")
        if kinds is not None:
            kinds[kind] += 1
        if kind == "response" and _is_http(uri):
            date, record_id = _date(head.get("warc-date")), head.get("warc-record-id", "")
            if room is not None and room[0] >= stop - start:
                room[0] -= stop - start
                kept = (raw[start:stop], short, head.get("warc-truncated"),
                        head.get("warc-payload-digest", ""))  # fmt: skip
                yield capture_key(uri), Ref(date, record_id, kept)
                continue
            yield capture_key(uri), ref_of(date, record_id, number, at, size, short)
        elif kind == "revisit":
            head = _split_record(path, raw, count)[0]  # its reference too
            yield capture_key(uri), _revisit(head, capture_key(uri))
    if not count:
        raise WarcError(f"{path}: not a WARC file (no record)")


def _raw_records(path: str | Path) -> Iterator[tuple[int, int, bytes]]:
    """Each record of the WARC at ``path`` as (its offset, its length in the file, its
    bytes): a gzip member each in a compressed WARC (WARC 1.1 Annex D), else the records
    one after another, each with the blank lines after it."""
    try:
        file: IO[bytes] = Path(path).open("rb")  # noqa: SIM115 - closed below
    except OSError as error:
        raise WarcError(f"{path}: cannot read: {error.strerror or error}") from None
    with file:
        try:
            first = file.read(2)
            file.seek(0)
            if first == b"\x1f\x8b":
                yield from _members(path, file)
            else:
                yield from _plain(path, file)
        except OSError as error:
            raise WarcError(f"{path}: cannot read: {error.strerror or error}") from None


#: Compressed bytes inflated at a time, and read from the file at a time.
_FEED: Final = 4_096
_READ: Final = 1 << 20


def _members(path: str | Path, file: IO[bytes]) -> Iterator[tuple[int, int, bytes]]:
    """Each gzip member of ``file`` inflated: (its offset, its compressed length, its
    bytes). A member cut short or corrupt is :class:`WarcError`."""
    data, base, at = b"", 0, 0  # data holds the file from offset base; at: the next member
    while True:
        if len(data) - at < _FEED:
            data, base, at = data[at:] + file.read(_READ), base + at, 0
            if not data:
                return
        start, inflate, parts = at, zlib.decompressobj(31), []
        try:
            while not inflate.eof:
                if at >= len(data):  # a member longer than what is held: read on
                    more = file.read(_READ)
                    if not more:
                        raise WarcError(f"{path}: cut: its last gzip member ends short "
                                        f"(at offset {base + len(data):,})")  # fmt: skip
                    data, base, at, start = data[start:] + more, base + start, at - start, 0
                piece = data[at : at + _FEED]
                parts.append(inflate.decompress(piece, _MOST_RECORD))
                if inflate.unconsumed_tail:
                    raise WarcError(f"{path}: a record at offset {base + start:,} inflates "
                                    f"past {_MOST_RECORD:,} bytes")  # fmt: skip
                at += len(piece)
        except zlib.error as error:
            raise WarcError(f"{path}: not a WARC file, or a cut one (a gzip member at offset "
                            f"{base + start:,}: {error})") from None  # fmt: skip
        at -= len(inflate.unused_data)
        yield base + start, at - start, b"".join(parts)


def _plain(path: str | Path, file: IO[bytes]) -> Iterator[tuple[int, int, bytes]]:
    """Each record of an uncompressed WARC: its headers, its block of ``Content-Length``
    bytes, and the lines after it up to the next record (blank, but for the first, which
    :func:`_split_record` reads as a block longer than its length)."""
    data, base, at = file.read(_READ), 0, 0
    while True:
        while at < len(data) and data[at] in b"\r\n":  # the blank lines between records
            at += 1
        if at >= len(data):
            data, base, at = file.read(_READ), base + len(data), 0
            if not data:
                return
            continue
        end = data.find(b"\r\n\r\n", at)
        while end < 0:
            more = file.read(_READ)
            if not more:
                yield base + at, len(data) - at, data[at:]  # no end of its headers: cut
                return
            data, base, at = data[at:] + more, base + at, 0
            end = data.find(b"\r\n\r\n")
        found = _LENGTH.search(data, at, end + 2)
        length = int(found[1]) if found else 0
        close = end + 4 + length
        while len(data) < close + 2:
            more = file.read(max(_READ, close + 2 - len(data)))
            if not more:
                break
            data, base, close, end, at = data[at:] + more, base + at, close - at, end - at, 0
        line = data.find(b"\n", close) + 1 or len(data)  # the first line after its block
        yield base + at, line - at, data[at:line]
        at = line


#: A WARC header's ``Content-Length``, in a record's headers.
_LENGTH: Final = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)", re.IGNORECASE)
#: The most bytes one record is inflated to (a robots.txt capture is far smaller).
_MOST_RECORD: Final = 64 * MAX_BODY_BYTES


#: A header line's end before a line that goes on with it (its own start a space or tab).
_ONE_LINE: Final = re.compile(rb"[ \t]*\r?\n[ \t]+")


class _Wanted:
    """The header names a reader reads (lowercase): each found by its place in the lines
    lowercased (a copy of the same length: the value read from the lines as written),
    or where one is written twice or with a space before its colon, by a pattern of them
    that reads each line, the first of each name kept (as warcio reads a header)."""

    def __init__(self, *names: str) -> None:
        self.probes = tuple((name, b"\n" + name.encode(), len(name) + 2) for name in names)
        longest_first = sorted((name.encode() for name in names), key=len, reverse=True)
        self.pattern = re.compile(
            rb"\n(" + b"|".join(map(re.escape, longest_first)) + rb")[ \t]*:([^\r\n]*)",
            re.IGNORECASE,
        )


#: The WARC headers a recheck reads, those its index reads of every record, those read
#: again of a response record that decides (its date and ID are its index's), and the
#: HTTP headers of a capture's answer.
_WARC_FIELDS: Final = _Wanted(
    "warc-type", "warc-target-uri", "warc-date", "warc-record-id", "content-length",
    "warc-payload-digest", "warc-refers-to-target-uri", "warc-refers-to-date",
    "warc-refers-to", "warc-truncated",
)  # fmt: skip
_INDEXED: Final = _Wanted(
    "warc-type", "warc-target-uri", "warc-date", "warc-record-id", "content-length",
    "warc-payload-digest", "warc-truncated",
)  # fmt: skip
_READ_AGAIN: Final = _Wanted("content-length", "warc-payload-digest", "warc-truncated")
_HTTP_FIELDS: Final = _Wanted(
    "location", "cache-control", "content-encoding", "transfer-encoding", "content-length"
)


def _split_record(
    path: str | Path, raw: bytes, number: int, wanted: _Wanted = _WARC_FIELDS
) -> tuple[dict[str, str], int, int, bool]:
    """A record's WARC headers that a recheck reads (:data:`_WARC_FIELDS`: names in
    lowercase, the first of each), where its block starts and stops in ``raw``, and
    whether the block runs on past its ``Content-Length`` (a line that is not blank
    after it: read as cut there, as warcio only warns of it). Raises :class:`WarcError`:
    not a WARC record, or cut (no length, or shorter than its length)."""
    if not raw.startswith(b"WARC/"):
        raise WarcError(f"{path}: not a WARC file (record {number} does not start with WARC/)")
    end = raw.find(b"\r\n\r\n")
    if end < 0:
        raise WarcError(f"{path}: cut: record {number} ends in its headers (no blank line, "
                        "CRLF CRLF, after them)")  # fmt: skip
    head = _fields(raw[raw.find(b"\n") : end], wanted)
    length = head.get("content-length", "")
    if not length.isdigit():
        raise WarcError(f"{path}: cut: record {number} has no length")
    start, stop = end + 4, end + 4 + int(length)
    if len(raw) < stop:
        raise WarcError(f"{path}: cut: record {number} is shorter than its length")
    line = raw.find(b"\n", stop) + 1 or len(raw)  # the first line after its block
    if raw[line:].strip():  # more than one line after its block in its member: a record
        raise WarcError(f"{path}: {WHOLE_GZIP}")
    return head, start, stop, bool(raw[stop:line].strip())


def _fields(lines: bytes, wanted: _Wanted) -> dict[str, str]:
    """The header lines of ``wanted``'s names (``Name: value``, each after a line feed;
    a line that starts with a space or a tab goes on with the one before) by name in
    lowercase, the first of each name kept; UTF-8, else ISO-8859-1 (as warcio reads
    them)."""
    if b"\n " in lines or b"\n\t" in lines:  # lines that go on: each line read
        lines = _ONE_LINE.sub(b" ", lines)
    low = lines.lower()
    found: dict[str, str] = {}
    for name, probe, skip in wanted.probes:
        at = low.find(probe)
        if at < 0:
            continue
        if low[at + skip - 1] != 58 or low.find(probe, at + skip) >= 0:  # 58: ":"
            return _each_line(lines, wanted.pattern)  # written twice, or spaced: each line
        stop = low.find(b"\n", at + skip)
        found[name] = _text(lines[at + skip : stop if stop >= 0 else len(lines)])
    return found


def _each_line(lines: bytes, pattern: re.Pattern[bytes]) -> dict[str, str]:
    """:func:`_fields` by a pattern of the names, each line read."""
    found: dict[str, str] = {}
    for name, value in pattern.findall(lines):
        key = name.lower().decode()
        if key not in found:
            found[key] = _text(value)
    return found


def _text(value: bytes) -> str:
    """A header's value: UTF-8, else ISO-8859-1, without the white space around it."""
    try:
        return value.decode().strip()
    except UnicodeDecodeError:
        return value.decode("iso-8859-1").strip()


#: The last ``WARC-Date`` read and its seconds (records of one second follow each other).
_last_date: list[Any] = ["", None]


def _date(text: str | None) -> float | None:
    """A ``WARC-Date`` as POSIX seconds (UTC unless it names its offset: WARC 1.1 §5.4)."""
    if text == _last_date[0]:
        return _last_date[1]  # type: ignore[no-any-return]
    seconds = seconds_of(text, "utc")
    _last_date[:] = [text, seconds]
    return seconds


class WarcFiles:
    """The WARCs read, by number, for their records to be read again by offset
    (:meth:`load`): each opened on its first record read again, and closed by
    :meth:`close` or when this is no longer used."""

    def __init__(self, paths: Sequence[str | Path]) -> None:
        self.paths = [str(path) for path in paths]
        self._open: dict[int, IO[bytes]] = {}
        self.close = weakref.finalize(self, _close_all, self._open)

    def load(self, ref: Ref) -> Capture:
        """The capture of ``ref`` as the crawl would have had its answer. Raises
        :class:`WarcError` (the file changed since it was read)."""
        where = ref.where
        if not isinstance(where, int):  # kept as the index read it
            block, short, marked, digest = where
            return _capture(ref, block, short, marked, digest)
        path = self.paths[ref.file]
        file = self._open.get(ref.file)
        try:
            if file is None:
                file = self._open[ref.file] = Path(path).open("rb")  # noqa: SIM115
            raw = os.pread(file.fileno(), ref.size, ref.offset)
            if raw[:2] == b"\x1f\x8b":
                raw = zlib.decompress(raw, 31)
        except (OSError, zlib.error) as error:
            raise WarcError(f"{path}: cannot read it again: {error}") from None
        head, start, stop, short = _split_record(path, raw, 0, _READ_AGAIN)
        return _capture(ref, raw[start:stop], short, head.get("warc-truncated"),
                        head.get("warc-payload-digest", ""))  # fmt: skip


def _close_all(files: dict[int, IO[bytes]]) -> None:
    for file in files.values():
        file.close()
    files.clear()


#: Why a WARC gzip-compressed as one whole file (``gzip file.warc``) is not read: a WARC
#: is compressed record by record, each a gzip member of its own (WARC 1.1, Annex D).
WHOLE_GZIP: Final = (
    "gzip-compressed as one whole file, not record by record as a WARC is (WARC 1.1, "
    "Annex D): `warcio recompress FILE NEW.warc.gz` rewrites it so, or decompress it "
    "(gunzip) and give the .warc"
)


def no_capture(path: str | Path, kinds: Counter[str]) -> str:
    """What a run says of the WARC at ``path`` that held no capture (no ``response`` or
    ``revisit`` record :func:`records` reads; ``kinds``: its records by type): no
    document is read from it (a ``warcinfo`` record alone, the wrong file named)."""
    held = ", ".join(f"{count:,} {kind}" for kind, count in kinds.items())
    return (f"the WARC {path} holds no capture (no response or revisit record of an "
            f"http(s) URL; its records: {held or 'none'}): no document is read from "
            "it")  # fmt: skip


def _is_http(uri: str) -> bool:
    """Whether ``uri``'s scheme is http or https, in any case."""
    return uri.partition(":")[0].lower() in ("http", "https")


def _revisit(headers: dict[str, str], uri: str) -> Capture:
    """A ``revisit`` record (its target URI ``uri`` as :func:`capture_key` spells it): a
    capture of its date whose answer is the record's it refers to, read by
    :func:`revisited` once every WARC is read (its own HTTP headers, a 304 or a 200
    without the body, are not the document)."""
    referred = headers.get("warc-refers-to-target-uri", "").strip("<>")
    refers_date = headers.get("warc-refers-to-date")
    return Capture(0, None, None, b"", seconds_of(headers.get("warc-date"), "utc"),
                   headers.get("warc-record-id", ""),
                   digest=headers.get("warc-payload-digest", ""),
                   refers_to=headers.get("warc-refers-to", ""),
                   refers_uri=capture_key(referred) if referred else uri,
                   refers_date=seconds_of(refers_date, "utc") if refers_date else None)  # fmt: skip


def revisited(revisit: Capture, referred: Capture | None, why: str = "") -> Capture:
    """The answer of ``revisit`` (a ``revisit`` record: WARC 1.1 §6.7), a capture of its
    own date: the answer of the record it refers to (``referred``, its own revisits
    read: its status, headers and payload, whether its profile is
    ``identical-payload-digest`` or ``server-not-modified``), its evidence naming both
    records. ``None``: that record is not in the WARCs given, or is not the one the
    revisit says (``why``): the document is not had, never an older capture read in
    its place."""
    if referred is None:
        named = revisit.refers_to or f"{revisit.refers_uri} of digest {revisit.digest or '-'}"
        problem = (f"the revisit record {revisit.record_id} repeats the payload of "
                   f"{named}, {why or 'which the WARC(s) given do not hold'}")  # fmt: skip
        return Capture(0, None, None, b"", revisit.date, revisit.record_id, problem=problem,
                       gap=True)  # fmt: skip
    record = f"{revisit.record_id} (a revisit of {referred.record_id})"
    return referred._replace(date=revisit.date, record_id=record)


#: The most payload bytes of one capture read (a compressed robots.txt is far smaller);
#: a longer one is read as cut there.
MAX_PAYLOAD: Final = 8 * MAX_BODY_BYTES


#: The zlib level a capture's payload is compressed at (twice as fast as the default).
FAST: Final = 1


def _data_lost(data: bytes, more: bool, marked: str | None, length: str | None) -> str:
    """Why a 2xx payload is a download that lost data (``""``: it is not), which the crawl
    gives up on as a network error (Scrapy's ``DOWNLOAD_FAIL_ON_DATALOSS``), unlike a
    download stopped on purpose (a cut body): the capture says the connection dropped
    (``WARC-Truncated: disconnect``), or it is shorter than its HTTP ``Content-Length``
    and not said to be cut."""
    if marked is not None and marked.strip().lower() == "disconnect":
        return "the capture lost data (WARC-Truncated: disconnect)"
    declared = (length or "").strip()
    if marked is None and not more and declared.isdigit() and len(data) < int(declared):
        return (f"the capture lost data: {len(data):,} bytes of the {int(declared):,} its "
                "Content-Length says")  # fmt: skip
    return ""


def _capture(ref: Ref, block: bytes, short: bool, marked: str | None, digest: str) -> Capture:
    """One ``response`` record (where it is, its block) as the crawl would have had its
    answer (``short``: its WARC block runs on past its ``Content-Length``, read as cut
    there, as ``WARC-Truncated: length`` (``marked``) is: never a whole document, never
    data lost either, which would lose the "no" of its lines before the cut; ``digest``:
    its ``WARC-Payload-Digest``, what a revisit names)."""
    date, record_id = ref.date, ref.record_id
    end = block.find(b"\r\n\r\n")
    end, skip = (end, 4) if end >= 0 else (block.find(b"\n\n"), 2)
    if end < 0:
        end, skip = len(block), 0
    first = block.find(b"\n", 0, end)
    first = end if first < 0 else first
    status_line = block[:first]
    http = _fields(block[first:end], _HTTP_FIELDS)  # each header after its line feed
    location, cache_control = http.get("location"), http.get("cache-control")
    statusline = status_line.rstrip(b"\r").decode("utf-8", "replace")
    code = statusline.partition(" ")[2].partition(" ")[0]
    if not (len(code) == 3 and code.isascii() and code.isdigit()):
        problem = f"the capture's status line has no status code ({statusline!r:.80})"
        return Capture(0, None, None, b"", date, record_id, problem=problem)
    if not 200 <= int(code) < 300:  # a body only a 2xx's is read (SPEC §4), whatever it is
        return Capture(int(code), location, cache_control, _EMPTY, date, record_id,
                       digest=digest)  # fmt: skip
    payload = block[end + skip :]
    data, more = payload[:MAX_PAYLOAD], len(payload) > MAX_PAYLOAD
    if marked is None and short:
        marked = "length"
    chunked = "chunked" in (http.get("transfer-encoding") or "").lower()
    length = None if chunked else http.get("content-length")
    lost = _data_lost(data, more, marked, length)
    if lost:
        return Capture(int(code), None, None, b"", date, record_id, problem=lost)
    cut = more or marked is not None
    whole = not cut and (length or "").strip() == str(len(data))  # as long as it says
    try:
        body = decode(data, http.get("content-encoding"), chunked, cut, whole)
    except Undecodable as error:
        problem = f"the captured body cannot be decoded: {error}"
        return Capture(int(code), None, None, b"", date, record_id, problem=problem)
    payload = body.data[: MAX_BODY_BYTES + 1]
    return Capture(int(code), location, cache_control, zlib_of(payload), date,
                   record_id, body.cut, digest=digest)  # fmt: skip


def zlib_of(data: bytes) -> bytes:
    """``data`` as a zlib stream (RFC 1950): up to :data:`STORED` bytes in one stored,
    non-compressed block (RFC 1951 §3.2.4: a copy and its Adler-32, a twentieth of
    zlib's own set-up for a robots.txt of 1 KB, which is decompressed again for little
    more), a larger body compressed (:data:`FAST`)."""
    if len(data) > STORED:
        return zlib.compress(data, FAST)
    size = len(data)
    return b"\x78\x01\x01%s%s%s" % (
        size.to_bytes(2, "little"),
        (size ^ 0xFFFF).to_bytes(2, "little"),
        data,
    ) + zlib.adler32(data).to_bytes(4, "big")


#: The most bytes a body is stored, not compressed (:func:`zlib_of`): most robots.txt
#: files are smaller.
STORED: Final = 4_096
#: An empty body as a zlib stream.
_EMPTY: Final = zlib_of(b"")
