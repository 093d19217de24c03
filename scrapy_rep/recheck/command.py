"""``python -m scrapy_rep recheck DATASET --purpose P …``: a stored collection re-checked
(docs/recheck.md). Its exit status: 0 every item is kept, 1 some are removed (refused
now, or unknown and not kept), 2 bad input or usage (an unreadable line is reported and
removed, the run goes on, and the status is 2).

The documents come from a WARC of captures (``--documents``), or are fetched now by a
Scrapy crawl: the caller hands in a :data:`Fetcher` (``python -m scrapy_rep`` and
``scrapy rep-recheck`` hand in :func:`scrapy_rep.crawl.commands.recheck_crawl.fetch`), so that this
module imports no Scrapy. The dataset is read twice when the documents are fetched (its
origins first, then its items), once from a WARC. A collection of several files (its
shards: :mod:`scrapy_rep.recheck.shards`) is one recheck: their origins' documents are
had once for all, one summary counts each shard, ``--out`` and ``--removed`` are
folders of one file per shard.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final, TextIO

from scrapy_rep.audit.file import TrailFileError, check_trail
from scrapy_rep.audit.terminal import printable
from scrapy_rep.fetch.rules import Policy
from scrapy_rep.recheck.asof import Dated, DateError, Then, add_dated_options, check_dated
from scrapy_rep.recheck.datasets import FORMATS, STDIN, Dataset, DatasetError, open_dataset
from scrapy_rep.recheck.documents import OriginDocuments
from scrapy_rep.recheck.files import OUTPUTS, PathError, Staged, check_paths
from scrapy_rep.recheck.outputs import (
    UNREADABLE,
    Evidence,
    EvidenceMemo,
    Tally,
    encode,
    item_line,
    summary_markdown,
)
from scrapy_rep.recheck.pacing import PAGES_NOT_CHECKED
from scrapy_rep.recheck.rechecker import Identity, Outcome, Rechecker, Status
from scrapy_rep.recheck.shards import ShardError, Shards, check_folders, expand, output_of
from scrapy_rep.recheck.store import DocumentStore, OriginsEvidence
from scrapy_rep.recheck.trail import RecheckTrail
from scrapy_rep.recheck.warc import Capture, WarcDocuments, WarcError, captures
from scrapy_rep.settings import RepConfig, RepSettingError, read_config
from scrapy_rep.settings.names import check_names, known_names
from scrapy_rep.settings.readers import read_bool
from scrapy_rep.urls.origins import Origin, origin_of
from scrapy_rep.verdict import TDM
from scrapy_rep.verdict.page import PageStatements

#: The width every help text fits in.
HELP_WIDTH: Final = 80
EXIT_KEPT: Final = 0
EXIT_REMOVED: Final = 1
EXIT_USAGE: Final = 2
#: The fetch was stopped (Ctrl-C, a shutdown) before every document was had.
EXIT_INTERRUPTED: Final = 3
#: The User-Agent a recheck is decided for without ``--user-agent`` (``check``'s).
DEFAULT_USER_AGENT: Final = "Scrapy"
#: What ``recheck`` does, as ``python -m scrapy_rep --help`` says it.
SUMMARY: Final = "re-check a stored collection: the items a site has since said no to"
#: Seconds between two progress lines, and before the first.
PROGRESS_EVERY: Final = 2.0
#: How long a recheck's crawl waits for a document that does not answer (a 5xx, a 429, a
#: network error) before it gives up, unless ``REP_UNREACHABLE_MAX_WAIT`` is set: a crawl
#: waits 600 s for requests it means to send, but an origin given up on only makes its
#: items unknown, and an unknown item is removed anyway (or kept with --keep-unknown).
RECHECK_MAX_WAIT: Final = 60.0

EXIT_CODES: Final = "\n".join([
    "exit codes (scrapy rep-recheck uses the same):",
    f"  {EXIT_KEPT}  every item is kept",
    f"  {EXIT_REMOVED}  some items are removed: refused now, or unknown (not kept)",
    f"  {EXIT_USAGE}  bad input or usage: a wrong option or setting, an unreadable dataset",
    "     or WARC, a dataset of no item; or an item that could not be read (reported,",
    "     removed, and the run goes on)",
    f"  {EXIT_INTERRUPTED}  interrupted: the fetch was stopped (Ctrl-C) before every document",
    "     was had; --out, --removed and --report are not written, the summary and the",
    "     trail's end line say so",
])  # fmt: skip


@dataclass(frozen=True)
class PageRead:
    """A page fetched again (``--pages``): what it says, as the crawl's page pass reads it."""

    statements: PageStatements
    image: bool = False
    #: When it was fetched (POSIX seconds).
    time: float = 0.0


@dataclass(frozen=True)
class FetchRequest:
    """What a recheck asks a crawl to fetch."""

    #: The origins (``https://a.example``) whose documents are fetched.
    origins: list[str]
    #: The settings of the crawl (the ``REP_*`` ones, ``USER_AGENT``, ``ROBOTSTXT_*``…).
    settings: dict[str, Any]
    #: The URLs whose pages are fetched again (``--pages``).
    pages: list[str] = field(default_factory=list)
    #: The crawler names robots.txt's License lines are read for (its held names).
    names: tuple[str, ...] = ()
    #: The tokens a page's scoped statements are read for, and whether TDMRep's meta
    #: tags are read too (an AI purpose).
    tokens: tuple[str, ...] = ()
    ai: bool = False
    #: Where the crawl's progress lines go (``None``: nowhere, ``--no-progress``).
    progress: TextIO | None = None


@dataclass
class FetchResult:
    """What the crawl fetched."""

    #: Each origin's documents, by origin (``https://a.example``): kept compact, a
    #: bounded number of them parsed (:class:`~scrapy_rep.recheck.store.DocumentStore`).
    documents: MutableMapping[str, OriginDocuments] = field(default_factory=DocumentStore)
    #: Each page fetched again, or why it could not be.
    pages: dict[str, PageRead | str] = field(default_factory=dict)
    #: Document downloads made (one per document: a counter).
    downloads: int = 0
    #: Why the crawl stopped before its end (Scrapy's close reason, ``shutdown`` for a
    #: Ctrl-C; ``""``: it finished): the documents of some origins were never asked for.
    interrupted: str = ""

    def documents_of(self, origin: Any) -> OriginDocuments | None:
        """An origin's documents (``None``: none had)."""
        return self.documents.get(str(origin))


#: Fetches the documents (and pages) a recheck needs: a Scrapy crawl.
Fetcher = Callable[[FetchRequest], FetchResult]


class UsageError(Exception):
    """A wrong option or setting: one line."""


# --------------------------------------------------------------------------- the command line


def add_options(parser: argparse.ArgumentParser, project: bool = False) -> None:
    """The options of ``recheck`` (``project``: ``scrapy rep-recheck``, whose settings
    are the project's and ``-s``, and whose DATASET files are Scrapy's arguments)."""
    if not project:
        parser.add_argument("dataset", metavar="DATASET", nargs="+", help="the collection: "
                            "JSON Lines, CSV, Parquet, an audit trail or its export (- for "
                            "standard input); or its shards: several files, a folder, a "
                            "quoted pattern ('shards/*.parquet')")  # fmt: skip
    parser.add_argument(
        "--purpose",
        help="REP_PURPOSE: search, ai-train, ai-input, "
        "comma-separated" + (" (default: the project's)" if project else ""),
    )
    parser.add_argument("--column", default="url", help="the field or column of each item's "
                        "URL (default: url; a dotted path in JSON: metadata.url)")  # fmt: skip
    parser.add_argument("--format", choices=FORMATS, help="the dataset's format (default: "
                        "from its name and first line)")  # fmt: skip
    parser.add_argument("--out", metavar="FILE", help="the items kept, in the dataset's format "
                        "(several shards: a folder, one file per shard)")  # fmt: skip
    parser.add_argument("--removed", metavar="FILE", help="the items removed, in its format "
                        "(several shards: a folder)")  # fmt: skip
    parser.add_argument("--report", metavar="FILE", help="one JSON line per item: its status "
                        "now and its evidence")  # fmt: skip
    parser.add_argument("--summary", metavar="FILE", help="the Markdown summary (default: "
                        "standard output)")  # fmt: skip
    parser.add_argument("--trail", metavar="FILE", help="the recheck's own audit trail "
                        "(appended to; `audit verify` checks it)")  # fmt: skip
    parser.add_argument("--documents", metavar="WARC", action="append", help="read the "
                        "documents from this WARC of captures instead of fetching them "
                        "now (repeatable: each origin's newest capture is read)")  # fmt: skip
    add_dated_options(parser)
    parser.add_argument("--fetch-missing", action="store_true", help="with --documents: "
                        "fetch now only the documents the WARC lacks (a Common Crawl "
                        "robots.txt WARC holds no tdmrep.json)")  # fmt: skip
    parser.add_argument("--pages", action="store_true", help="fetch each item's page again: its "
                        "headers and meta decide too")  # fmt: skip
    parser.add_argument("--keep-unknown", action="store_true", help="keep the items whose "
                        "documents could not be had (counted either way)")  # fmt: skip
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="no progress lines on standard error")  # fmt: skip
    if not project:
        parser.add_argument("--user-agent", "-A", default=DEFAULT_USER_AGENT,
                            help=f"USER_AGENT (default: {DEFAULT_USER_AGENT})")  # fmt: skip
        parser.add_argument("--profile", help="REP_PROFILE: google (default), rfc9309, legacy")
        parser.add_argument("--no-robotstxt-obey", dest="robotstxt_obey", action="store_false",
                            help="as ROBOTSTXT_OBEY = False")  # fmt: skip
        parser.add_argument("-s", "--set", dest="settings", metavar="NAME=VALUE",
                            action="append", default=[], help="a setting, as a crawl's "
                            "(REP_PURPOSE_AGENTS=…, REP_OVERRIDES=…; repeatable)")  # fmt: skip


def parser(prog: str = "python -m scrapy_rep recheck") -> argparse.ArgumentParser:
    about = textwrap.fill(
        "Re-check a stored collection: which of its items a site has since said no to, "
        "by which signal, line and document, decided as a crawl with these settings would "
        "decide them now.", width=HELP_WIDTH,
    )  # fmt: skip
    recheck = argparse.ArgumentParser(
        prog=prog, description=about, epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    add_options(recheck)
    return recheck


def settings_of(options: argparse.Namespace) -> dict[str, Any]:
    """The options of ``python -m scrapy_rep recheck`` as a crawl's settings."""
    settings: dict[str, Any] = {"USER_AGENT": options.user_agent,
                                "ROBOTSTXT_OBEY": options.robotstxt_obey}  # fmt: skip
    for pair in options.settings:
        name, equals, value = pair.partition("=")
        if not equals or not name:
            raise UsageError(f"-s takes NAME=VALUE, got {pair!r}")
        settings[name.strip()] = value
    if options.profile:
        settings["REP_PROFILE"] = options.profile
    return settings


def main(argv: Sequence[str], out: TextIO | None = None, fetcher: Fetcher | None = None) -> int:
    """``python -m scrapy_rep recheck ARGV`` (the arguments after ``recheck``)."""
    try:
        # DATASET's files may come after the options too (``a.jsonl --out k b.jsonl``)
        options = parser().parse_intermixed_args(list(argv))
    except SystemExit as exit_:
        return EXIT_KEPT if exit_.code == 0 else EXIT_USAGE
    try:
        settings = settings_of(options)
    except UsageError as error:
        print(f"scrapy_rep: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    return run(options, settings, fetcher, out)


# --------------------------------------------------------------------------- the run


def fetch_progress(
    done: int,
    total: int,
    waiting: Mapping[str, tuple[str, float]],
    max_wait: float,
    now: float,
) -> str:
    """The crawl's progress line: the origins done, and those waiting (for
    :data:`PROGRESS_EVERY` seconds or more) on a document that does not answer yet, by
    kind, until when at the latest (each is given up on ``max_wait`` seconds after it
    started), and the setting that shortens it. ``waiting``: origin -> (the kind of
    document it waits for, when it started waiting, POSIX seconds)."""
    line = f"recheck: fetching: {done:,} of {total:,} origin(s) done"
    slow = [(kind, since) for kind, since in waiting.values() if now - since >= PROGRESS_EVERY]
    if not slow:
        return line
    kinds = Counter(kind for kind, _ in slow)
    on = ", ".join(f"{kind} ({count:,})" for kind, count in sorted(kinds.items()))
    until = datetime.fromtimestamp(max(since for _, since in slow) + max_wait, timezone.utc)
    return (f"{line}; {len(slow):,} waiting on a document that does not answer yet: {on}; "
            f"each given up on after {max_wait:,.0f} s, by about {until:%H:%M:%S} UTC at "
            "the latest (a lower REP_UNREACHABLE_MAX_WAIT shortens it; their items are "
            "then unknown)")  # fmt: skip


class Progress:
    """A progress line on standard error every :data:`PROGRESS_EVERY` seconds of a long
    run: items read, origins resolved, rate, time left (when the total is known)."""

    def __init__(self, err: TextIO | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.err = err
        self.clock = clock
        self.start = self.last = clock()
        self.total = 0

    def begin(self) -> None:
        """The items start being decided: the rate counts the work from now, not the
        fetch before it (minutes waiting on origins that do not answer)."""
        self.start = self.last = self.clock()

    def reading(self, items: int, origins: int) -> None:
        """The dataset's first pass: items read so far, origins found."""
        if self.err is None or self.clock() - self.last < PROGRESS_EVERY:
            return
        self.last = self.clock()
        print(f"recheck: reading the dataset: {items:,} items read, {origins:,} origins "
              "found", file=self.err, flush=True)  # fmt: skip

    def tick(self, items: int, origins: int) -> None:
        if self.err is None:
            return
        now = self.clock()
        if now - self.last < PROGRESS_EVERY:
            return
        self.last = now
        rate = items / max(now - self.start, 1e-9)
        left = ""
        if self.total and rate:
            left = f", about {max(0.0, (self.total - items) / rate):,.0f} s left"
        print(f"recheck: {items:,} items read, {origins:,} origins resolved, "
              f"{rate:,.0f} items/s{left}", file=self.err, flush=True)  # fmt: skip


def warc_rechecker(settings: Mapping[str, Any], warc: str | Path) -> Rechecker:
    """The decisions of a crawl with ``settings`` (its ``REP_PURPOSE`` set), on the
    documents of the WARC at ``warc`` (the pipeline step's, in each worker). Raises
    :class:`UsageError` and :class:`WarcError`."""
    try:
        config, identity, _ = read_settings(settings)
    except RepSettingError as error:
        raise UsageError(str(error)) from None
    rechecker = Rechecker(config, identity, lambda origin: None)
    policy = Policy(unreachable_action=config.unreachable_action)
    rechecker.documents = WarcDocuments(
        captures(warc), rechecker.rules, rechecker.names, config.profile, policy
    )
    return rechecker


def read_settings(settings: Mapping[str, Any]) -> tuple[RepConfig, Identity, str]:
    """A recheck's settings (``REP_PURPOSE`` set), read as the crawl reads them at start
    (:func:`scrapy_rep.settings.read_config`, the one reader of the crawl, the command
    and the datatrove step; and the names the crawl refuses): the config, who the items
    are decided for, the User-Agent. Raises :class:`RepSettingError` naming the setting
    (``ROBOTSTXT_OBEY = "ture"`` is refused, never read as false)."""
    settings = dict(settings)
    config = read_config(settings)
    check_names(settings, known_names(), config.unknown_settings)
    user_agent = str(settings.get("USER_AGENT") or DEFAULT_USER_AGENT)
    declared = str(settings.get("ROBOTSTXT_USER_AGENT") or user_agent)
    obey = read_bool(settings, "ROBOTSTXT_OBEY", True)
    return config, Identity(declared, user_agent, obey, purpose_set=True), user_agent


def run(
    options: argparse.Namespace,
    settings: Mapping[str, Any],
    fetcher: Fetcher | None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """The recheck of ``options.dataset`` under ``settings`` (a crawl's); the exit status.
    ``fetcher``: the crawl that fetches the documents (not needed with a WARC)."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        recheck = Recheck(options, settings, err)
        fetched = None
        if recheck.request is not None:
            if fetcher is None:
                raise UsageError("no crawl to fetch the documents with: give --documents WARC")
            fetched = fetcher(recheck.request)
        return recheck.finish(fetched, out)
    except (UsageError, DatasetError, WarcError, TrailFileError, PathError, ShardError,
            DateError) as error:  # fmt: skip
        print(printable(f"scrapy_rep: error: {error}"), file=err)  # file names: one line
        return EXIT_USAGE
    except RepSettingError as error:  # the crawl's add-on would not start it
        print(f"scrapy_rep: error: {error}", file=err)
        return EXIT_USAGE
    except OSError as error:  # a file that failed after all (an output on a full disk)
        print(f"scrapy_rep: error: {error.filename or 'a file'}: {error.strerror or error}",
              file=err)  # fmt: skip
        return EXIT_USAGE


class Recheck:
    """One recheck, in two steps around the crawl that fetches its documents: made from
    the options and settings (the dataset's first pass: :attr:`request`, what the crawl
    is to fetch; ``None`` with a WARC), then :meth:`finish`. Raises :class:`UsageError`,
    :class:`DatasetError`, :class:`WarcError`."""

    #: What the capture nearest before each item's date said of it (``None``: no older
    #: capture given: :mod:`scrapy_rep.recheck.asof`).
    then: Then | None = None

    def __init__(self, options: argparse.Namespace, settings: Mapping[str, Any], err: TextIO):
        self.options = options
        self.err = err
        settings = dict(settings)
        if options.purpose:
            settings["REP_PURPOSE"] = options.purpose
        if not settings.get("REP_PURPOSE"):
            raise UsageError("give the purpose the collection is for: --purpose (search, "
                             "ai-train, ai-input)")  # fmt: skip
        settings["REP_AUDIT_FILE"] = ""  # the recheck writes its own trail (--trail)
        #: ``REP_PURPOSE_AGENTS`` as given: the trail's header names its presets.
        self.purpose_agents = settings.get("REP_PURPOSE_AGENTS")
        try:
            self.config, identity, self.user_agent = read_settings(settings)
        except RepSettingError as error:
            raise UsageError(str(error)) from None
        config = self.config
        if options.pages and options.documents:
            raise UsageError("--pages fetches the pages now, with their documents: "
                             "not with --documents")  # fmt: skip
        if isinstance(options.documents, (str, Path)):  # one WARC, as a program may name it
            options.documents = [str(options.documents)]
        check_dated(options.documents, options.as_of, options.date_column, options.fetch_missing)
        named = options.dataset
        #: The collection's files (one, or its shards).
        self.shards = shards = expand([str(named)] if isinstance(named, (str, Path)) else named)
        _check_files(options, shards)  # before anything is read or fetched
        if shards.skipped:
            shown = ", ".join(map(printable, shards.skipped[:5]))
            shown += ", …" if len(shards.skipped) > 5 else ""
            print(f"recheck: {len(shards.skipped):,} file(s) of no dataset format not read: "
                  f"{shown}", file=err, flush=True)  # fmt: skip
        if shards.reports:
            print(printable(f"recheck: {len(shards.reports):,} file(s) a recheck wrote as its "
                            f"--report not read: {', '.join(shards.reports)}"),
                  file=err, flush=True)  # fmt: skip
        self.datasets = [
            open_dataset(path, options.column, config.purpose, options.format or "")
            for path in shards.paths
        ]
        #: The first (or only) dataset.
        self.dataset = self.datasets[0]
        self.progress = Progress(err if options.progress else None)
        # robots.txt's line for an item it allows only where it is written (report, trail)
        explain = bool(options.report or options.trail)
        self.rechecker = Rechecker(config, identity, lambda o: None, explain)
        #: What the crawl is to fetch (``None``: the documents come from a WARC).
        self.request: FetchRequest | None = None
        #: The WARC's documents (``--documents``).
        self.warc: WarcDocuments | None = None
        if options.fetch_missing and not options.documents:
            raise UsageError("--fetch-missing fetches what a WARC lacks: give --documents WARC")
        if options.documents:
            self.warc, self.then = self._read_warcs(identity)  # a bad WARC: before any output
            if not options.fetch_missing:
                return
            origins, _, total = _origins(self.datasets, False)
            lacking = [name for name in origins if self.warc.lacks(_origin(name))]
            if not total:
                raise DatasetError(f"{shards.label}: no item")
            print(f"recheck: the WARC lacks documents of {len(lacking):,} of {len(origins):,} "
                  "origin(s); fetching them now", file=err, flush=True)  # fmt: skip
            if lacking:
                self.request = self._request(settings, lacking, [])
            return
        origins, pages, total = _origins(self.datasets, options.pages, self.progress)
        if not total:
            raise DatasetError(f"{shards.label}: no item")
        self.progress.total = total
        within = f" in {len(shards.paths):,} shards" if shards.several else ""
        once = " (once for every shard)" if shards.several else ""
        print(f"recheck: {total:,} items{within} over {len(origins):,} origins; fetching "
              f"their documents{once}", file=err, flush=True)  # fmt: skip
        self.request = self._request(settings, origins, pages)
        self.source = ""

    def _read_warcs(self, identity: Identity) -> tuple[WarcDocuments, Then | None]:
        """The documents of the WARCs of ``--documents`` (as of ``--as-of``), the items
        decided with them; and what says ``then`` (``None``: no older capture)."""
        options, config, rechecker = self.options, self.config, self.rechecker
        for dataset in self.datasets:  # a trail or an export has its own `then`
            if hasattr(dataset, "date_column"):
                dataset.date_column = options.date_column or ""
        dated = Dated(options.documents, options.as_of, bool(options.date_column))
        policy = Policy(unreachable_action=config.unreachable_action)

        def read(captured: Mapping[str, Capture]) -> WarcDocuments:
            return WarcDocuments(captured, rechecker.rules, rechecker.names, config.profile, policy)

        rechecker.documents = warc = read(dated.now())
        self.source = dated.source
        return warc, dated.then(lambda found: Rechecker(config, identity, read(found), False))

    def _request(
        self, settings: dict[str, Any], origins: list[str], pages: list[str]
    ) -> FetchRequest:
        """What the crawl is to fetch, under the recheck's wait (said)."""
        config, rechecker, err = self.config, self.rechecker, self.err
        crawl = {**settings, "REP_PURPOSE": config.purpose}
        crawl.setdefault("REP_UNREACHABLE_MAX_WAIT", RECHECK_MAX_WAIT)
        default = "REP_UNREACHABLE_MAX_WAIT" not in settings
        print(f"recheck: a document that does not answer (a 5xx, a 429, a network error) "
              f"is waited for at most {float(crawl['REP_UNREACHABLE_MAX_WAIT']):,.0f} s "
              "(REP_UNREACHABLE_MAX_WAIT" + (", a recheck's default: its origin's items "
              "are then unknown, and removed anyway)" if default else ")"),
              file=err, flush=True)  # fmt: skip
        return FetchRequest(origins, crawl, pages, rechecker.names, rechecker.tokens,
                            rechecker.rules.needs_tdmrep,
                            err if self.options.progress else None)  # fmt: skip

    def finish(self, fetched: FetchResult | None, out: TextIO) -> int:
        """Every item decided and written; the summary; the exit status. The outputs are
        written under temporary names and renamed over their paths once all are whole."""
        if fetched is not None and self.warc is not None:
            self.rechecker.documents = Completed(self.warc, fetched)
            self.source += (f"; what it lacks fetched now, {fetched.downloads:,} download(s) "
                            f"for {len(fetched.documents):,} origin(s)")  # fmt: skip
        elif fetched is not None:
            self.rechecker.documents = fetched.documents_of
            self.source = (f"fetched now, {fetched.downloads:,} download(s) for "
                           f"{len(fetched.documents):,} origin(s)")  # fmt: skip
        if fetched is not None and isinstance(fetched.documents, DocumentStore):
            fetched.documents.parsed_origins = self.config.recheck_parsed_origins
        staged = Staged()
        #: Why the fetch stopped before its end (``""``: it did not).
        self.interrupted = fetched.interrupted if fetched is not None else ""
        #: The pages asked for (``--pages``) that an interrupted fetch did not have.
        self.pages_missing = 0
        if self.interrupted and self.request is not None and fetched is not None:
            self.pages_missing = len(set(self.request.pages) - fetched.pages.keys())
        try:
            code = self._decide_all(fetched, out, staged)
        except BaseException:
            staged.discard()  # no output that looks whole from a run stopped half-way
            raise
        staged.commit()
        return code

    def _decide_all(self, fetched: FetchResult | None, out: TextIO, staged: Staged) -> int:
        """Every item decided, shard by shard, its outputs written to ``staged``'s paths."""
        options, config, rechecker, shards = self.options, self.config, self.rechecker, self.shards
        formats = list(dict.fromkeys(dataset.format for dataset in self.datasets))
        about: dict[str, Any] = {
            "dataset": shards.label,
            "format": ", ".join(formats),
            "documents": _one(options.documents) or "fetched",
            "pages": bool(options.pages),
        }
        if shards.several:
            about["shards"] = list(shards.paths)
        named = tuple(agent.lower() for agent in rechecker.rules.agents)
        tally = Tally(config.purpose, named_agents=named)
        memo = OriginsEvidence(rechecker)
        self.progress.begin()
        with ExitStack() as stack:
            report = (
                stack.enter_context(staged.path(options.report).open("wb"))
                if options.report and not self.interrupted
                else None
            )
            trail = None
            if options.trail:
                trail = RecheckTrail(
                    Path(options.trail), rechecker, about, self.user_agent, self.purpose_agents
                )
                stack.callback(trail.file.close)  # stopped by bad input: no end line
            read_again = fetched.pages if fetched is not None and options.pages else None
            for path, dataset in zip(shards.paths, self.datasets, strict=True):
                shard = path if shards.several else ""
                if shard:
                    tally.shard(shard, dataset.format)
                self._decide_shard(dataset, shard, staged, tally, memo, report, trail, read_again)
            end = "interrupted" if self.interrupted else "finished"
            head = trail.close(tally.statuses[UNREADABLE], end) if trail is not None else ""
        if not tally.items:
            raise DatasetError(f"{shards.label}: no item")
        identity_words = (f"agent `{rechecker.agent}` (User-Agent `{self.user_agent}`), "
                          f"profile {config.profile}")  # fmt: skip
        lines = summary_markdown(tally, shards.label, self.source, identity_words,
                                 options.keep_unknown, agents_obeyed(rechecker))  # fmt: skip
        if self.interrupted:
            stopped = self._interrupted_line()
            lines[1:1] = ["", f"**{stopped}**"]
            print(f"recheck: {stopped}", file=self.err, flush=True)
        if (unchecked := self._tdmrep_unchecked()) is not None:
            lines[1:1] = ["", f"**{unchecked}**"]
            print(f"recheck: {unchecked}", file=self.err, flush=True)
        if not options.pages:
            lines += ["", PAGES_NOT_CHECKED]
            print(f"recheck: {PAGES_NOT_CHECKED}", file=self.err, flush=True)
        if trail is not None:
            lines += ["", f"Trail: `{options.trail}`, head `{head}` (`python -m scrapy_rep "
                      f"audit verify {options.trail}`)"]  # fmt: skip
        text = "\n".join(lines) + "\n"
        if options.summary:
            staged.path(options.summary).write_text(text, encoding="utf-8")
        else:
            out.write(text)
        self._say_undated()
        for (number, why), shard in zip(tally.unreadable, tally.unreadable_in, strict=True):
            print(printable(f"scrapy_rep: error: {shard or shards.label}: line {number}: {why} "
                            "(removed)"), file=self.err)  # fmt: skip
        if self.interrupted:
            return EXIT_INTERRUPTED
        if tally.statuses[UNREADABLE]:
            return EXIT_USAGE
        removed = tally.statuses[Status.REFUSED] + (
            0 if options.keep_unknown else tally.statuses[Status.UNKNOWN]
        )
        return EXIT_REMOVED if removed else EXIT_KEPT

    def _decide_shard(
        self,
        dataset: Dataset,
        shard: str,
        staged: Staged,
        tally: Tally,
        memo: EvidenceMemo,
        report: Any,
        trail: RecheckTrail | None,
        read_again: dict[str, PageRead | str] | None,
    ) -> None:
        """One file's items decided (``shard``: its path, when the collection is several),
        its kept and removed items written to their own files (an interrupted fetch: no
        collection or removed items that would look whole; the origins never fetched are
        unknown, kept by --keep-unknown)."""
        options, rechecker, progress = self.options, self.rechecker, self.progress
        dated = bool(options.date_column)
        with ExitStack() as stack:
            writers = [
                None if path is None or self.interrupted else stack.enter_context(
                    _Closing(dataset.writer(staged.path(
                        output_of(path, shard) if shard else path
                    )))
                )
                for path in (options.out, options.removed)
            ]  # fmt: skip
            for chunk in dataset.chunks(rows=any(writers)):
                keep = []
                for item in chunk.items:
                    item, status, said, outcome = _decide(
                        item, rechecker, read_again, trail, memo, shard, self.then, dated
                    )
                    tally.add(item, status, said, _origin_name(item.url))
                    kept = status == Status.KEPT or (
                        status == Status.UNKNOWN and options.keep_unknown
                    )
                    keep.append(kept)
                    if report is not None:
                        why = item.problem or (outcome.why if outcome is not None else "")
                        report.write(encode(item_line(item, status, said, why, shard)))
                for writer, wanted in zip(writers, (True, False), strict=True):
                    if writer is not None:
                        writer.write(chunk, keep if wanted else [not k for k in keep])
                progress.tick(tally.items, len(tally.origins))

    def _say_undated(self) -> None:
        """The line that counts the items refused now whose date could not be read."""
        if self.then is not None and self.then.undated:
            print(f"recheck: {self.then.undated_line(self.options.date_column)}", file=self.err)

    def _tdmrep_unchecked(self) -> str | None:
        """The line that says a WARC held no tdmrep.json for origins whose items an AI
        purpose needs it for (``None``: it held every one needed)."""
        warc = self.warc
        if warc is None or not warc.without_tdmrep:
            return None
        filled = getattr(self.rechecker.documents, "filled", 0)
        lacking = warc.without_tdmrep - filled
        if lacking <= 0:
            return None
        fetch = "" if self.options.fetch_missing else (
            " --fetch-missing fetches now only what the WARC lacks."
        )  # fmt: skip
        return (f"TDMRep not checked for {lacking:,} of {warc.origins:,} origin(s): the WARC "
                "holds no tdmrep.json for them (a Common Crawl robots.txt WARC holds none), so "
                f"their items are unknown for {', '.join(self.config.purpose)} unless their "
                f"robots.txt refuses them already.{fetch}")  # fmt: skip

    def _interrupted_line(self) -> str:
        """What an interrupted run says first, in its summary and on standard error."""
        asked = len(self.request.origins) if self.request is not None else 0
        pages = f", {self.pages_missing:,} page(s) not fetched" if self.pages_missing else ""
        return (f"Interrupted ({self.interrupted}): the fetch stopped before every "
                f"document was had ({asked:,} origin(s) asked for{pages}); the items of the "
                "origins (and pages) not fetched are unknown. Not a whole recheck: --out, "
                "--removed and --report were not written (exit status "
                f"{EXIT_INTERRUPTED}).")  # fmt: skip


#: The AI purposes, for which the groups of AI crawlers' names matter.
AI_PURPOSES: Final = frozenset({"ai-train", "ai-input"})


def agents_obeyed(rechecker: Rechecker) -> list[str]:
    """For an AI purpose, the robots.txt groups obeyed, as the summary says them: a site
    that blocks GPTBot or CCBot by name (the commonest AI opt-out) says no only when
    ``REP_PURPOSE_AGENTS`` names them."""
    if not AI_PURPOSES.intersection(rechecker.config.purpose):
        return []
    own = ", ".join(f"`{name}`" for name in rechecker.names if name)
    agents = rechecker.rules.agents
    if agents:
        named = ", ".join(f"`{agent}`" for agent in agents)
        return [f"robots.txt groups obeyed: the crawler's own ({own}, else `*`) and those of "
                f"{named} (REP_PURPOSE_AGENTS): their Disallow lines refuse items too"]  # fmt: skip
    return [f"robots.txt groups obeyed: the crawler's own ({own}, else `*`) only; no AI "
            "crawler's: a site that blocks GPTBot or CCBot by name alone is not read as a "
            "no (obey their groups with -s REP_PURPOSE_AGENTS=GPTBot,CCBot)"]  # fmt: skip


def _check_files(options: argparse.Namespace, shards: Shards) -> None:
    """Every output against every input (each shard, the WARC) and each other, and
    writable; the trail can be chained on (:mod:`scrapy_rep.recheck.files`). With several
    shards, ``--out`` and ``--removed`` are folders: each shard's own file in them is
    checked. Raises :class:`PathError`, :class:`TrailFileError` and :class:`ShardError`."""
    stdin = shards.paths == [STDIN]
    what = "a shard of the dataset" if shards.several else "the dataset"
    inputs = [] if stdin else [(what, Path(path)) for path in shards.paths]
    for warc in options.documents or ():
        inputs.append(("the WARC of --documents", Path(warc)))
    given = [(name, str(getattr(options, name))) for name in OUTPUTS
             if getattr(options, name, None)]  # fmt: skip
    folders = [(name, path) for name, path in given if name in ("out", "removed")]
    check_folders(shards, folders)
    outputs = []
    for name, path in given:
        if shards.several and name in ("out", "removed"):
            outputs += [(name, output_of(path, shard)) for shard in shards.paths]
        else:
            outputs.append((name, Path(path)))
    check_paths(inputs, outputs, stdin=0 if stdin else None)
    if options.trail:
        try:
            check_trail(Path(options.trail))  # locked, no trail, or ending with a cut line
        except TrailFileError as error:
            raise PathError(f"--trail {error}") from None


class Completed:
    """A WARC's documents, completed by what was fetched now where it lacks them
    (``--fetch-missing``): an origin not captured is the crawl's; a tdmrep.json not
    captured is the crawl's, beside the captured robots.txt."""

    def __init__(self, warc: WarcDocuments, fetched: FetchResult) -> None:
        self.warc = warc
        self.fetched = fetched
        #: Origins whose tdmrep.json was filled in from the fetch.
        self.filled = 0

    def __call__(self, origin: Origin) -> OriginDocuments | None:
        captured = self.warc(origin)
        now = self.fetched.documents_of(origin)
        if captured is None or now is None:
            return captured if captured is not None else now
        tdm = now.known(TDM, origin)
        if captured.known(TDM, origin) is None and tdm is not None:
            captured.add(TDM, origin, tdm)
            captured.missing.pop(TDM, None)
            self.filled += 1
        return captured


def _one(warcs: Sequence[str] | None) -> str | list[str] | None:
    """The WARC(s) of ``--documents`` as the trail's header names them."""
    if not warcs:
        return None
    return warcs[0] if len(warcs) == 1 else list(warcs)


def _origin(name: str) -> Origin:
    origin = origin_of(f"{name}/")
    assert origin is not None  # the names of origins _origins found
    return origin


class _Closing:
    def __init__(self, writer: Any) -> None:
        self.writer = writer

    def __enter__(self) -> Any:
        return self.writer

    def __exit__(self, *exc: object) -> None:
        self.writer.close()


def _origin_name(url: str) -> str:
    origin = origin_of(url) if url else None
    return str(origin) if origin is not None else ""


def _origins(
    datasets: Sequence[Dataset], pages: bool, progress: Progress | None = None
) -> tuple[list[str], list[str], int]:
    """The first pass: the origins of every shard (and their URLs, for ``--pages``), in
    order, each once, and how many items they have (``progress``: a line while it reads)."""
    origins: dict[str, None] = {}
    urls: dict[str, None] = {}
    total = 0
    chunks = (chunk for dataset in datasets for chunk in dataset.chunks(rows=False))
    for chunk in chunks:
        for item in chunk.items:
            total += 1
            if item.problem:
                continue
            origin = origin_of(item.url)
            if origin is not None:
                origins[str(origin)] = None
                if pages:
                    urls[item.url] = None
        if progress is not None:
            progress.reading(total, len(origins))
    return list(origins), list(urls), total


def _decide(
    item: Any,
    rechecker: Rechecker,
    pages: dict[str, PageRead | str] | None,
    trail: RecheckTrail | None,
    memo: EvidenceMemo,
    shard: str = "",
    then: Then | None = None,
    dated: bool = False,
) -> tuple[Any, str, Evidence, Outcome | None]:
    """One item (its ``then`` filled in when refused now and ``then`` can say it: older
    captures), its status, evidence and outcome (``None``: its URL could not be read)."""
    if item.problem:
        return item, UNREADABLE, Evidence(signal=UNREADABLE, text=item.problem), None
    outcome = rechecker.decide(item.url)
    statements = None
    fetched_at = decided = 0.0
    if pages is not None and outcome.status is Status.KEPT:
        page = pages.get(item.url, "not fetched")
        if isinstance(page, str):
            outcome = rechecker.page_failed(outcome, page)
        else:
            # Decided as the item is, not as the page was fetched: an unavailable_after
            # that passed since (during the run) removes it; the trail says when.
            statements, fetched_at = page.statements, page.time
            decided = max(page.time, time.time())
            outcome = rechecker.after_fetch(item.url, outcome, statements, decided, page.image)
    if then is not None and outcome.status is Status.REFUSED and item.then is None:
        item = replace(item, then=then.of(item.url, item.date, dated))
    if trail is not None:
        trail.item(item, outcome, statements, decided, shard)
    return item, str(outcome.status), memo.of(item.url, outcome, fetched_at), outcome
