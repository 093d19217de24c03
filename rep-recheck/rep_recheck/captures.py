"""The captures of a WARC file (pure; read with the optional ``warcio``): each
``response`` record as the crawl would have had its answer (:class:`Capture`), by its
target URI as origins are compared (:func:`capture_key`, whatever its scheme's case), and
each ``revisit`` record as a capture of its own date whose answer is the record's it
refers to (:func:`revisited`); the newest of each URL is read (one whose ``WARC-Date``
cannot be read: :func:`present`; several of one second that disagree:
:func:`of_one_date`; every capture of several WARCs: :class:`~rep_recheck.asof.Timeline`).


A file that is not a WARC, or is cut (a record shorter than its ``Content-Length``, a
gzip member cut short), is :class:`WarcError`: nothing is decided from half a file. One
capture that cannot be read (a status line without a status, a payload that cannot be
decoded, a compressed stream corrupt anywhere: :mod:`~rep_recheck.payload`) is a
document not had, as a download that failed is (a robots.txt so refuses its origin's
items: RFC 9309 §2.3.1.4; another document leaves them unknown), and the rest of the
file is read. A capture is read by its status, whatever its body: only a 2xx's
body is read (SPEC §4), so only a 2xx's is held to its length (a 404 page, a 301's
"moved" are never data lost). A 2xx payload cut short (``WARC-Truncated``, a cut chunk
or compressed stream, a record whose WARC block runs on past its ``Content-Length``,
which warcio only warns of) is read as a download stopped: the body before the cut, said
to be cut (a cut tdmrep.json keeps its entries before the cut, a cut RSL license refuses
AI use), never as the whole document; cut before 500 KiB, the least a crawler reads (RFC
9309 §2.5), its lines may refuse an item, never allow one
(:meth:`~rep_recheck.rechecker.Rechecker.decide`). One that lost data
(``WARC-Truncated: disconnect``, or shorter than its ``Content-Length`` without saying it
is cut) is not had, as a download that lost data is in a crawl.
"""

from __future__ import annotations

import math
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Final
from urllib.parse import urlsplit

from rep_engine.records import seconds_of
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from rep_engine.urls.origins import origin_of
from rep_recheck.payload import Undecodable, decode

#: Why a WARC cannot be read without its extra.
NO_WARCIO: Final = "reading a WARC needs warcio (pip install warcio; the warc extra of scrapy_rep)"


class WarcError(Exception):
    """The file cannot be read as a whole WARC: one line saying why."""


@dataclass(frozen=True, slots=True)
class Capture:
    """One ``response`` record: the answer to one URL."""

    status: int
    location: str | None
    cache_control: str | None
    #: The payload (at most 500 KiB and one byte), zlib-compressed (:data:`FAST`: every
    #: capture is, a few are read).
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
    origin = origin_of(uri)
    if origin is None:
        return uri
    try:
        parts = urlsplit(uri.strip())
    except ValueError:
        return uri
    query = f"?{parts.query}" if parts.query else ""
    return f"{origin}{parts.path or '/'}{query}"


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


def responses(path: str | Path, kinds: Counter[str] | None = None) -> Iterator[tuple[str, Capture]]:
    """Each ``response`` and ``revisit`` record of the WARC at ``path``, in the file's
    order, with its target URI as :func:`capture_key` spells it (every capture, however
    many of one URL; a revisit's answer read by :func:`revisited`). A response's HTTP
    headers are read whatever its scheme's case (``HTTP://``: warcio reads them only
    after ``http:`` or ``https:``). ``kinds``: counts each record's ``WARC-Type``. Raises
    :class:`WarcError` (a cut file: after the records before the cut, which a caller
    keeps only once the whole file is read; a file gzip-compressed whole, which no WARC
    reader reads: :data:`WHOLE_GZIP`)."""
    try:
        from warcio.archiveiterator import ArchiveIterator
    except ImportError:
        raise WarcError(NO_WARCIO) from None
    try:
        file: IO[bytes] = Path(path).open("rb")  # noqa: SIM115 - closed below
    except OSError as error:
        raise WarcError(f"{path}: cannot read: {error.strerror or error}") from None
    records = 0
    with file:
        try:
            archive = ArchiveIterator(file)
            for record in archive:
                if not str(getattr(record, "format", "")).startswith("warc"):
                    raise WarcError(f"{path}: not a WARC file")
                records += 1
                headers = record.rec_headers
                if not headers.get_header("Content-Length"):
                    raise WarcError(f"{path}: cut: record {records} has no length")
                uri = str(headers.get_header("WARC-Target-URI") or "").strip("<>")
                kind = record.rec_type
                if kinds is not None:
                    kinds[str(kind)] += 1
                if kind == "response" and record.http_headers is None and _is_http(uri):
                    record.http_headers = archive.loader.load_http_headers(
                        kind, uri.lower(), record.raw_stream, record.length
                    )  # fmt: skip
                response = kind == "response" and record.http_headers is not None
                raw = _payload(record.raw_stream, MAX_PAYLOAD if response else 0)
                if getattr(record.raw_stream, "limit", 0):
                    raise WarcError(f"{path}: cut: record {records} is shorter than its length")
                if kind == "revisit":
                    yield capture_key(uri), _revisit(headers, capture_key(uri))
                if not response:
                    continue
                # what follows its block: a line that is not blank is the rest of a block
                # longer than its Content-Length (warcio only warns of it): cut there
                warned = getattr(archive, "err_count", 0)
                archive.read_to_end()
                short = getattr(archive, "err_count", 0) > warned
                yield capture_key(uri), _capture(record, raw, short)
        except WarcError:
            raise
        except Exception as error:  # warcio's ArchiveLoadFailed, a cut gzip member…
            if "non-chunked gzip" in str(error):  # warcio's words, over ten lines
                raise WarcError(f"{path}: {WHOLE_GZIP}") from None
            said = " ".join(str(error).split())  # warcio's messages span lines
            raise WarcError(f"{path}: not a WARC file, or a cut one ({said})") from None
    if not records:
        raise WarcError(f"{path}: not a WARC file (no record)")


#: Why a WARC gzip-compressed as one whole file (``gzip file.warc``) is not read: a WARC
#: is compressed record by record, each a gzip member of its own (WARC 1.1, Annex D).
WHOLE_GZIP: Final = (
    "gzip-compressed as one whole file, not record by record as a WARC is (WARC 1.1, "
    "Annex D): `warcio recompress FILE NEW.warc.gz` rewrites it so, or decompress it "
    "(gunzip) and give the .warc"
)


def no_capture(path: str | Path, kinds: Counter[str]) -> str:
    """What a run says of the WARC at ``path`` that held no capture (no ``response`` or
    ``revisit`` record :func:`responses` reads; ``kinds``: its records by type): no
    document is read from it (a ``warcinfo`` record alone, the wrong file named)."""
    held = ", ".join(f"{count:,} {kind}" for kind, count in kinds.items())
    return (f"the WARC {path} holds no capture (no response or revisit record of an "
            f"http(s) URL; its records: {held or 'none'}): no document is read from "
            "it")  # fmt: skip


def _is_http(uri: str) -> bool:
    """Whether ``uri``'s scheme is http or https, in any case."""
    return uri.partition(":")[0].lower() in ("http", "https")


def _revisit(headers: Any, uri: str) -> Capture:
    """A ``revisit`` record (its target URI ``uri`` as :func:`capture_key` spells it): a
    capture of its date whose answer is the record's it refers to, read by
    :func:`revisited` once every WARC is read (its own HTTP headers, a 304 or a 200
    without the body, are not the document)."""
    referred = str(headers.get_header("WARC-Refers-To-Target-URI") or "").strip("<>")
    refers_date = headers.get_header("WARC-Refers-To-Date")
    return Capture(0, None, None, b"", seconds_of(headers.get_header("WARC-Date"), "utc"),
                   str(headers.get_header("WARC-Record-ID") or ""),
                   digest=str(headers.get_header("WARC-Payload-Digest") or ""),
                   refers_to=str(headers.get_header("WARC-Refers-To") or ""),
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
    return replace(referred, date=revisit.date, record_id=record)


#: The most payload bytes of one capture read (a compressed robots.txt is far smaller);
#: a longer one is read as cut there.
MAX_PAYLOAD: Final = 8 * MAX_BODY_BYTES


#: The zlib level a capture's payload is compressed at (twice as fast as the default).
FAST: Final = 1


def _payload(stream: IO[bytes], most: int = MAX_PAYLOAD) -> tuple[bytes, bool]:
    """The raw payload of a record, at most ``most`` bytes (the rest is read past), and
    whether there was more."""
    kept = stream.read(most) if most else b""
    more = False
    while True:
        rest = stream.read(1 << 16)
        if not rest:
            return kept, more
        more = True


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


def _capture(record: Any, raw: tuple[bytes, bool], short: bool = False) -> Capture:
    """One ``response`` record as the crawl would have had its answer (``short``: its
    WARC block runs on past its ``Content-Length``, read as cut there, as
    ``WARC-Truncated: length`` is: never a whole document, never data lost either, which
    would lose the "no" of its lines before the cut)."""
    headers, http = record.rec_headers, record.http_headers
    date = seconds_of(headers.get_header("WARC-Date"), "utc")
    record_id = str(headers.get_header("WARC-Record-ID") or "")
    digest = str(headers.get_header("WARC-Payload-Digest") or "")  # what a revisit names
    location, cache_control = http.get_header("Location"), http.get_header("Cache-Control")
    code = str(http.get_statuscode() or "")
    if not (len(code) == 3 and code.isascii() and code.isdigit()):
        problem = f"the capture's status line has no status code ({http.statusline!r:.80})"
        return Capture(0, None, None, b"", date, record_id, problem=problem)
    if not 200 <= int(code) < 300:  # a body only a 2xx's is read (SPEC §4), whatever it is
        return Capture(int(code), location, cache_control, zlib.compress(b"", FAST), date,
                       record_id, digest=digest)  # fmt: skip
    data, more = raw
    marked = headers.get_header("WARC-Truncated")
    if marked is None and short:
        marked = "length"
    chunked = "chunked" in str(http.get_header("Transfer-Encoding") or "").lower()
    length = None if chunked else http.get_header("Content-Length")
    lost = _data_lost(data, more, marked, length)
    if lost:
        return Capture(int(code), None, None, b"", date, record_id, problem=lost)
    cut = more or marked is not None
    whole = not cut and (length or "").strip() == str(len(data))  # as long as it says
    try:
        body = decode(data, http.get_header("Content-Encoding"), chunked, cut, whole)
    except Undecodable as error:
        problem = f"the captured body cannot be decoded: {error}"
        return Capture(int(code), None, None, b"", date, record_id, problem=problem)
    payload = body.data[: MAX_BODY_BYTES + 1]
    return Capture(int(code), location, cache_control, zlib.compress(payload, FAST), date,
                   record_id, body.cut, digest=digest)  # fmt: skip
