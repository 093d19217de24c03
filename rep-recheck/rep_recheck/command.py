"""``python -m scrapy_rep recheck DATASET --purpose P …``: a stored collection re-checked
(docs/recheck.md). Its exit status: 0 every item is kept, 1 some are removed (refused
now, unknown and not kept, or unreadable: a warning names its line, the run goes on), 2
bad input or usage (nothing produced: no item could be read), 3 a fetch that ended
before every document was had, 130 and 143 stopped by SIGINT (Ctrl-C) or SIGTERM.

The documents come from a WARC of captures (``--documents``), or are fetched now by a
Scrapy crawl: the caller hands in a :data:`Fetcher` (``python -m scrapy_rep`` and
``scrapy rep-recheck`` hand in :func:`scrapy_rep.crawl.commands.recheck_crawl.fetch`), so that this
module imports no Scrapy. The dataset is read twice when the documents are fetched (its
origins first, then its items), once from a WARC. A collection of several files (its
shards: :func:`rep_recheck.files.expand`) is one recheck: their origins' documents are
had once for all, one summary counts each shard, ``--out`` and ``--removed`` are
folders of one file per shard.

A recheck is two steps around its crawl: :class:`Recheck` made here (the options and
settings read, every output checked, the dataset's first pass: what the crawl is to
fetch), then :meth:`~rep_recheck.finishing.Finishing.finish`. Its command line is
:mod:`~rep_recheck.options`'s, what it asks the crawl and gets back
:mod:`~rep_recheck.fetching`'s, each item's decision
:mod:`~rep_recheck.deciding`'s; their public names are importable from here too.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from collections.abc import Collection, Mapping, Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Final, TextIO

from rep_engine import commandline
from rep_engine.commandline import Door
from rep_engine.fetch.rules import Policy
from rep_engine.settings.readers import RepSettingError
from rep_engine.trail.file import TrailFileError
from rep_engine.trail.terminal import printable
from rep_recheck.asof import Dated, DateError, Then, check_dated
from rep_recheck.datasets import DatasetError, open_dataset
from rep_recheck.deciding import (
    AI_PURPOSES,
    agents_obeyed,
    choices_line,
    never_captured,
    scope_note,
    warc_rechecker,
)
from rep_recheck.fetching import (
    PROGRESS_EVERY,
    RECHECK_MAX_WAIT,
    Completed,
    Fetcher,
    FetchRequest,
    FetchResult,
    PageRead,
    PaymentAsked,
    Progress,
    fetch_progress,
    origin_named,
    origins_of,
)
from rep_recheck.files import (
    PathError,
    ShardError,
    Shards,
    expand,
    subfolders_not_read,
    warc_files,
)
from rep_recheck.finishing import Finishing
from rep_recheck.names import ROOM, Numbered, names_held, tmpdir_unused
from rep_recheck.options import (
    DEFAULT_USER_AGENT,
    EXIT_INTERRUPTED,
    EXIT_KEPT,
    EXIT_REMOVED,
    EXIT_USAGE,
    SUMMARY,
    TOOL,
    UsageError,
    check_outputs,
    consult_of,
    parser,
    read_settings,
    settings_of,
)
from rep_recheck.rechecker import Identity, Rechecker
from rep_recheck.stopping import Stopped, stopping
from rep_recheck.warc import Capture, WarcDocuments, WarcError

__all__ = [
    "AI_PURPOSES",
    "DEFAULT_USER_AGENT",
    "EXIT_INTERRUPTED",
    "EXIT_KEPT",
    "EXIT_REMOVED",
    "EXIT_USAGE",
    "PROGRESS_EVERY",
    "RECHECK_MAX_WAIT",
    "SUMMARY",
    "TOOL",
    "Completed",
    "FetchRequest",
    "FetchResult",
    "Fetcher",
    "PageRead",
    "PaymentAsked",
    "Progress",
    "Recheck",
    "UsageError",
    "agents_obeyed",
    "fetch_progress",
    "main",
    "parser",
    "read_settings",
    "run",
    "run_options",
    "settings_of",
    "warc_rechecker",
]


def main(argv: Sequence[str], out: TextIO | None = None, fetcher: Fetcher | None = None) -> int:
    """``python -m scrapy_rep recheck ARGV`` (the arguments after ``recheck``; DATASET's
    files may come after the options too: ``a.jsonl --out k b.jsonl``)."""
    return commandline.run(TOOL, argv, out, Door("python -m scrapy_rep recheck", fetcher))


def run_options(options: argparse.Namespace, out: TextIO, door: Door) -> int:
    """:data:`TOOL`'s runner: the recheck of the options read at ``door``, under the
    settings of its project (``scrapy rep-recheck``) or of its options."""
    try:
        settings = door.project if door.project is not None else settings_of(options)
    except UsageError as error:
        print(f"scrapy_rep: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    return run(options, settings, door.crawl, out)


def run(
    options: argparse.Namespace,
    settings: Mapping[str, Any],
    fetcher: Fetcher | None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """The recheck of ``options.dataset`` under ``settings`` (a crawl's); the exit status.
    ``fetcher``: the crawl that fetches the documents (not needed with a WARC). Ctrl-C or
    SIGTERM stops it at any phase (:mod:`~rep_recheck.stopping`): one line, and the
    shells' exit status (130, 143)."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    with stopping():
        try:
            return _run(options, settings, fetcher, out, err)
        except Stopped as stop:  # Ctrl-C, SIGTERM: cleaned up as after an error
            late = f" ({stop.late})" if stop.late else ": no output written, each as it was"
            trail = f"; {stop.trail}" if stop.trail else ""
            print(printable(f"recheck: stopped by {stop.name}{late}{trail} (exit status "
                            f"{stop.status})"), file=err, flush=True)  # fmt: skip
            return stop.status


def _run(
    options: argparse.Namespace,
    settings: Mapping[str, Any],
    fetcher: Fetcher | None,
    out: TextIO,
    err: TextIO,
) -> int:
    """:func:`run`, the errors it can tell said in one line."""
    try:
        if fetcher is None and not options.documents:  # before the dataset is read
            raise UsageError(_no_crawl(False))
        recheck = Recheck(options, settings, err)
        fetched = None
        if recheck.request is not None:
            if fetcher is None:
                raise UsageError(_no_crawl(bool(options.documents)))
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
    except sqlite3.Error as error:  # a temporary SQLite file (names.spill_file): its disk
        print(printable(f"scrapy_rep: error: {tempfile.gettempdir()}: the recheck's temporary "
                        f"files: {error} ({ROOM})"), file=err)  # fmt: skip
        return EXIT_USAGE


def _no_crawl(warc: bool) -> str:
    """Why a recheck that must fetch documents now (``warc``: what a WARC lacks,
    ``--fetch-missing``) cannot: its crawl is Scrapy's, which ``python -m rep_recheck``
    never runs (rep-recheck alone reads WARCs), and which may not be installed."""
    what = "--fetch-missing fetches what the WARC lacks" if warc else (
        "without --documents WARC, the documents are fetched now"
    )  # fmt: skip
    if find_spec("scrapy") is None:
        return (f"{what} by a Scrapy crawl, and Scrapy is not installed (rep-recheck alone "
                "reads WARCs): run python -m scrapy_rep recheck once the clone's root folder "
                "is installed too (pip install /path/to/scrapy_rep)")  # fmt: skip
    return f"{what} by scrapy_rep's crawl: run python -m scrapy_rep recheck"


#: The choices a run whose WARC holds none of a kind of document has, as the command
#: takes them (:func:`~rep_recheck.deciding.choices_line`).
CHOICES: Final = ("--fetch-missing (fetch them now)", "--consult robots.txt", "--keep-unknown")


class Recheck(Finishing):
    """One recheck, in two steps around the crawl that fetches its documents: made from
    the options and settings (the dataset's first pass: :attr:`request`, what the crawl
    is to fetch; ``None`` with a WARC), then :meth:`finish`. Raises :class:`UsageError`,
    :class:`DatasetError`, :class:`WarcError`."""

    def __init__(self, options: argparse.Namespace, settings: Mapping[str, Any], err: TextIO):
        self.options = options
        self.err = err
        settings, identity = self._read_options(settings)
        if unused := tmpdir_unused():
            print(printable(unused), file=err, flush=True)
        config = self.config
        #: The collection's files (one, or its shards), each opened.
        self.shards = shards = self._shards()
        self.datasets = [
            open_dataset(path, options.column, config.purpose, options.format or "")
            for path in shards.paths
        ]
        #: The first (or only) dataset.
        self.dataset = self.datasets[0]
        self.progress = Progress(err if options.progress else None)
        # robots.txt's line for an item it allows only where it is written (report, trail)
        explain = bool(options.report or options.trail)
        self.rechecker = Rechecker(config, identity, lambda o: None, explain).consulting(
            self.consult
        )
        self.request = None
        self.warc = None
        self.source = ""
        for note in scope_note(self.rechecker):
            print(f"recheck: {note}", file=err, flush=True)
        if options.documents:
            self.warc, self.then = self._read_warcs(identity)  # a bad WARC: before any output
            if options.fetch_missing:
                self._fetch_missing(settings)
            return
        first = origins_of(self.datasets, options.pages, self.progress,
                           config.recheck_parsed_origins)  # fmt: skip
        origins, pages, total = first.origins, first.pages, first.total
        if not total:
            raise DatasetError(f"{shards.label}: no item")
        self.progress.total = total
        self.again = first.again
        within = f" in {len(shards.paths):,} shards" if shards.several else ""
        once = " (once for every shard)" if shards.several else ""
        print(f"recheck: {total:,} items{within} over {len(origins):,} origins; fetching "
              f"their documents{once}", file=err, flush=True)  # fmt: skip
        self.request = self._request(settings, origins, pages)

    def _read_options(self, given: Mapping[str, Any]) -> tuple[dict[str, Any], Identity]:
        """The settings of the recheck (its config, User-Agent, ``REP_PURPOSE_AGENTS``
        set on it) and who the items are decided for; the options that go together
        checked. Raises :class:`UsageError` and :class:`DateError`."""
        options = self.options
        settings = dict(given)
        if options.purpose:
            settings["REP_PURPOSE"] = options.purpose
        if not settings.get("REP_PURPOSE"):
            raise UsageError("give the purpose the collection is for: --purpose (search, "
                             "ai-train, ai-input)")  # fmt: skip
        settings["REP_AUDIT_FILE"] = ""  # the recheck writes its own trail (--trail)
        self.purpose_agents = settings.get("REP_PURPOSE_AGENTS")
        try:
            self.config, identity, self.user_agent = read_settings(settings)
        except RepSettingError as error:
            raise UsageError(str(error)) from None
        if options.pages and options.documents:
            raise UsageError("--pages fetches the pages now, with their documents: "
                             "not with --documents")  # fmt: skip
        if options.documents:  # one WARC as a program may name it, several, folders of them
            options.documents = self._warcs(options.documents)
        check_dated(options.documents, options.as_of, options.date_column, options.fetch_missing,
                    options.then_tolerance)  # fmt: skip
        #: The kinds of document the items are decided on (``--consult``; ``None``: all).
        self.consult = consult_of(getattr(options, "consult", None))
        return settings, identity

    def _warcs(self, named: str | Path | Sequence[str | Path]) -> list[str]:
        """The WARC files of ``--documents`` (:func:`~rep_recheck.files.warc_files`): the
        files of a folder that are not WARCs said, as a dataset folder's are."""
        warcs = warc_files(named)
        for not_read in warcs.not_read():
            print(printable(f"recheck: {not_read}"), file=self.err, flush=True)
        return warcs.paths

    def _shards(self) -> Shards:
        """The collection's files, every output checked against them before anything is
        read or fetched, and the files of a folder not read said."""
        options, err = self.options, self.err
        named = options.dataset
        shards = expand([str(named)] if isinstance(named, (str, Path)) else named)
        self.folders = check_outputs(options, shards)
        if shards.skipped:
            shown = ", ".join(map(printable, shards.skipped[:5]))
            shown += ", …" if len(shards.skipped) > 5 else ""
            print(f"recheck: {len(shards.skipped):,} file(s) of no dataset format not read: "
                  f"{shown}", file=err, flush=True)  # fmt: skip
        if shards.subfolders:
            said = subfolders_not_read(shards.subfolders, "shards")
            print(printable(f"recheck: {said}"), file=err, flush=True)
        if shards.reports:
            print(printable(f"recheck: {len(shards.reports):,} file(s) a recheck wrote as its "
                            f"--report not read: {', '.join(shards.reports)}"),
                  file=err, flush=True)  # fmt: skip
        if options.fetch_missing and not options.documents:
            raise UsageError("--fetch-missing fetches what a WARC lacks: give --documents WARC")
        return shards

    def _fetch_missing(self, settings: dict[str, Any]) -> None:
        """``--fetch-missing``: what the crawl is to fetch, the documents the WARC lacks."""
        assert self.warc is not None
        held = self.config.recheck_parsed_origins
        first = origins_of(self.datasets, False, None, held)
        origins, total = first.origins, first.total
        self.progress.total, self.again = total, first.again
        lacking = Numbered(names_held(held))
        for name in origins:
            if self.warc.lacks(origin_named(name)):
                lacking.number(name)
        if not total:
            raise DatasetError(f"{self.shards.label}: no item")
        print(f"recheck: the WARC lacks documents of {len(lacking):,} of {len(origins):,} "
              "origin(s); fetching them now", file=self.err, flush=True)  # fmt: skip
        if lacking:
            self.request = self._request(settings, lacking, [])

    def _read_warcs(self, identity: Identity) -> tuple[WarcDocuments, Then | None]:
        """The documents of the WARCs of ``--documents`` (as of ``--as-of``), the items
        decided with them; and what says ``then`` (``None``: no older capture)."""
        options, config, rechecker = self.options, self.config, self.rechecker
        for dataset in self.datasets:  # a trail or an export has its own `then`
            if hasattr(dataset, "date_column"):
                dataset.date_column = options.date_column or ""
        dated = Dated(options.documents, options.as_of, bool(options.date_column),
                      config.recheck_parsed_origins, options.then_tolerance)  # fmt: skip
        policy = Policy(unreachable_action=config.unreachable_action)

        def read(captured: Mapping[str, Capture]) -> WarcDocuments:
            held = config.recheck_parsed_origins
            digest = bool(options.report or options.trail)  # the evidence written
            return WarcDocuments(captured, rechecker.rules, rechecker.names, config.profile,
                                 policy, held, rechecker.not_consulted, digest)  # fmt: skip

        rechecker.documents = warc = read(dated.now())
        self.source = dated.source
        for said in dated.timeline.captureless:  # every item of its origins would be unknown
            print(printable(f"recheck: {said}"), file=self.err, flush=True)
        never = [] if options.fetch_missing else never_captured(dated.timeline, rechecker)
        if never:  # said at the start: the run would end with these items unknown
            self.never_had = choices_line(never, config.purpose, CHOICES, options.keep_unknown)
            print(f"recheck: {self.never_had}", file=self.err, flush=True)
        return warc, dated.then(
            lambda found: Rechecker(config, identity, read(found), False).consulting(self.consult)
        )

    def _request(
        self, settings: dict[str, Any], origins: Collection[str], pages: list[str]
    ) -> FetchRequest:
        """What the crawl is to fetch, under the recheck's wait (said)."""
        config, rechecker, err = self.config, self.rechecker, self.err
        crawl = {**settings, "REP_PURPOSE": config.purpose}
        crawl.setdefault("REP_UNREACHABLE_MAX_WAIT", RECHECK_MAX_WAIT)
        default = "REP_UNREACHABLE_MAX_WAIT" not in settings
        max_wait = float(crawl["REP_UNREACHABLE_MAX_WAIT"])
        connect = min(config.unreachable_connect_max_wait, max_wait)
        sooner = (f", {connect:,.0f} s when its host cannot be connected to "
                  "(REP_UNREACHABLE_CONNECT_MAX_WAIT), which comes first" if connect < max_wait
                  else "")  # fmt: skip
        print(f"recheck: a document that does not answer (a 5xx, a 429, a network error) "
              f"is waited for at most {max_wait:,.0f} s from its first failure "
              "(REP_UNREACHABLE_MAX_WAIT" + (", a recheck's default: a robots.txt given up "
              "on refuses its origin's items, RFC 9309 §2.3.1.4, another document leaves "
              "them unknown, removed anyway" if default else "") + f"){sooner}",
              file=err, flush=True)  # fmt: skip
        return FetchRequest(origins, crawl, pages, rechecker.names, rechecker.tokens,
                            rechecker.rules.needs_tdmrep, err if self.options.progress else None,
                            rechecker.not_consulted)  # fmt: skip
