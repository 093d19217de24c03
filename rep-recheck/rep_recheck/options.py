"""The command line of ``recheck`` (its options and arguments, its help and exit codes),
its settings read as a crawl reads them, and the files its options name checked before
any work (:func:`check_outputs`; pure).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from rep_audit.treeheads import head_options
from rep_engine import commandline
from rep_engine.commandline import EACH_SETTING, PYTHON, SCRAPY, Tool
from rep_engine.settings import RepConfig, read_config
from rep_engine.settings.names import check_names, known_names
from rep_engine.settings.readers import read_bool
from rep_engine.trail.file import TrailFileError, check_trail
from rep_engine.verdict.decide import ROBOTS
from rep_recheck.asof import DATED_OPTIONS
from rep_recheck.datasets import FORMATS, STDIN, DatasetError, compression_of, zstd_module
from rep_recheck.documents import KINDS
from rep_recheck.files import (
    MANIFEST,
    OUTPUTS,
    SUFFIXES,
    PathError,
    Shards,
    Stale,
    check_folders,
    check_paths,
    output_of,
    previous_outputs,
)
from rep_recheck.rechecker import Identity

EXIT_KEPT: Final = 0
EXIT_REMOVED: Final = 1
EXIT_USAGE: Final = 2
#: The fetch ended before every document was had (its crawl closed early: a
#: ``CLOSESPIDER_*`` setting, a program's own stop of ``fetch_here``).
EXIT_INTERRUPTED: Final = 3
#: The User-Agent a recheck is decided for without ``--user-agent`` (``check``'s).
DEFAULT_USER_AGENT: Final = "Scrapy"
#: What ``recheck`` does, as ``python -m scrapy_rep --help`` says it.
SUMMARY: Final = "re-check a stored collection: the items a site has since said no to"

#: What each exit status means.
EXITS: Final[dict[int | str, str]] = {
    EXIT_KEPT: "every item is kept",
    EXIT_REMOVED: "some items are removed: refused now, unknown (not kept), or unreadable "
                  "(a warning names its line; the run goes on)",
    EXIT_USAGE: "bad input or usage: a wrong option or setting, an unreadable dataset or "
                "WARC, a dataset of no item, or none of whose items could be read",
    EXIT_INTERRUPTED: "interrupted: the fetch ended before every document was had (its "
                      "crawl closed early); --out, --removed and --report are not written, "
                      "the summary and the trail's end line say so",
    130: "stopped by Ctrl-C (SIGINT), 143 by SIGTERM, at any phase: one line says so; "
         "every output as it was (or all whole, if they were being put in place), no "
         "temporary file left, the trail's run ended",
}  # fmt: skip


#: What ``--consult`` does, as its help says it.
CONSULT_HELP: Final = (
    f"decide on these kinds of document only ({', '.join(KINDS)}; robots.txt always), the "
    "others read as none and named as not consulted (--consult robots.txt: a robots.txt-only "
    "archive)"
)


class UsageError(Exception):
    """A wrong option or setting: one line."""


#: The arguments of ``recheck`` (:class:`rep_engine.commandline.Tool` rows); the
#: settings-only ones not under ``scrapy rep-recheck``, whose settings are the project's
#: and ``-s``.
ARGUMENTS: Final = (
    ("dataset", {"metavar": "DATASET", "nargs": "+", "help": "the collection: JSON Lines, "
                 "CSV, Parquet, an audit trail or its export (- for standard input); or its "
                 "shards: several files, a folder, a quoted pattern ('shards/*.parquet')"}),
    ("--purpose", {"door": PYTHON, "help": "REP_PURPOSE: search, ai-train, ai-input, "
                   "comma-separated"}),
    ("--purpose", {"door": SCRAPY, "help": "REP_PURPOSE: search, ai-train, ai-input, "
                   "comma-separated (default: the project's)"}),
    ("--column", {"default": "url", "help": "the field or column of each item's URL (default: "
                  "url; a dotted path in JSON: metadata.url)"}),
    ("--format", {"choices": FORMATS, "help": "the dataset's format (default: from its name "
                  "and first line)"}),
    ("--out", {"metavar": "FILE", "help": "the items kept, in the dataset's format (several "
               "shards: a folder, one file per shard)"}),
    ("--removed", {"metavar": "FILE", "help": "the items removed, in its format (several "
                   "shards: a folder)"}),
    ("--report", {"metavar": "FILE", "help": "one JSON line per item: its status now and its "
                  "evidence"}),
    ("--summary", {"metavar": "FILE", "help": "the Markdown summary (default: standard output)"}),
    ("--trail", {"metavar": "FILE", "help": "the recheck's own audit trail (appended to; "
                 "`audit verify` checks it)"}),
    ("--documents", {"metavar": "WARC", "action": "append", "help": "read the documents from "
                     "this WARC of captures instead of fetching them now (repeatable: each "
                     "origin's newest capture is read)"}),
    *DATED_OPTIONS,
    ("--fetch-missing", {"action": "store_true", "help": "with --documents: fetch now only the "
                         "documents the WARC lacks (a Common Crawl robots.txt WARC holds no "
                         "tdmrep.json)"}),
    ("--pages", {"action": "store_true", "help": "fetch each item's page again: its headers "
                 "and meta decide too"}),
    ("--keep-unknown", {"action": "store_true", "help": "keep the items whose documents could "
                        "not be had (counted either way)"}),
    ("--consult", {"metavar": "KIND[,KIND…]", "help": CONSULT_HELP}),
    ("--no-progress", {"dest": "progress", "action": "store_false",
                       "help": "no progress lines on standard error"}),
    ("--user-agent", "-A", {"default": DEFAULT_USER_AGENT, "setting": "USER_AGENT",
                            "door": PYTHON, "help": f"USER_AGENT (default: {DEFAULT_USER_AGENT})"}),
    ("--profile", {"setting": "REP_PROFILE", "door": PYTHON,
                   "help": "REP_PROFILE: google (default), rfc9309, legacy"}),
    ("--no-robotstxt-obey", {"dest": "robotstxt_obey", "action": "store_const", "const": False,
                             "setting": "ROBOTSTXT_OBEY", "door": PYTHON,
                             "help": "as ROBOTSTXT_OBEY = False"}),
    ("-s", "--set", {"dest": "settings", "metavar": "NAME=VALUE", "action": "append",
                     "default": [], "setting": EACH_SETTING, "door": PYTHON, "help": "a setting, "
                     "as a crawl's (REP_PURPOSE_AGENTS=…, REP_OVERRIDES=…; repeatable)"}),
)  # fmt: skip
#: The ``recheck`` tool (``python -m scrapy_rep recheck``, ``python -m rep_recheck``,
#: ``scrapy rep-recheck``).
TOOL: Final = Tool(
    name="recheck",
    synopsis="DATASET --purpose P",
    summary=SUMMARY,
    about="Re-check a stored collection: which of its items a site has since said no to, by "
    "which signal, line and document, decided as a crawl with these settings would decide "
    "them now.",
    exits=EXITS,
    arguments=ARGUMENTS,
    runner="rep_recheck.command:run_options",
    scrapy="rep-recheck",
)


def parser(prog: str = "python -m scrapy_rep recheck") -> argparse.ArgumentParser:
    """The ``recheck`` command line (:data:`TOOL`'s), named ``prog``."""
    return commandline.parser(TOOL, prog)


def consult_of(given: str | Iterable[str] | None) -> frozenset[str] | None:
    """The kinds of document ``--consult`` (or the datatrove step's ``consult``) names
    (``None``: not given, every kind the purpose needs). Raises :class:`UsageError` for
    a kind the engine does not name, or a scope without robots.txt."""
    if given is None:
        return None
    named = given.split(",") if isinstance(given, str) else list(given)
    kinds = frozenset(kind.strip() for kind in named if kind.strip())
    unknown = sorted(kinds - set(KINDS))
    if unknown:
        raise UsageError(f"--consult: no such kind of document: {', '.join(unknown)} (the "
                         f"kinds: {', '.join(KINDS)})")  # fmt: skip
    if ROBOTS not in kinds:
        raise UsageError(f"--consult must name {ROBOTS}: every item is decided on its "
                         f"origin's {ROBOTS} first (RFC 9309)")  # fmt: skip
    return kinds


def settings_of(options: argparse.Namespace) -> dict[str, Any]:
    """The options of ``python -m scrapy_rep recheck`` as a crawl's settings. Raises
    :class:`UsageError` for a ``-s`` without ``NAME=VALUE``."""
    try:
        return commandline.settings_of(TOOL, options)
    except commandline.UsageError as error:
        raise UsageError(str(error)) from None


def read_settings(settings: Mapping[str, Any]) -> tuple[RepConfig, Identity, str]:
    """A recheck's settings (``REP_PURPOSE`` set), read as the crawl reads them at start
    (:func:`rep_engine.settings.read_config`, the one reader of the crawl, the command
    and the datatrove step; and the names the crawl refuses): the config, who the items
    are decided for, the User-Agent. Raises :class:`RepSettingError` naming the setting
    (``ROBOTSTXT_OBEY = "ture"`` is refused, never read as false)."""
    settings = dict(settings)
    config = read_config(settings)
    check_names(settings, known_names(), config.unknown_settings)
    head_options(config)  # the trail's signing key read, its head file checked: at start
    user_agent = str(settings.get("USER_AGENT") or DEFAULT_USER_AGENT)
    declared = str(settings.get("ROBOTSTXT_USER_AGENT") or user_agent)
    obey = read_bool(settings, "ROBOTSTXT_OBEY", True)
    return config, Identity(declared, user_agent, obey, purpose_set=True), user_agent


def check_outputs(options: argparse.Namespace, shards: Shards) -> dict[str, list[Stale]]:
    """Every output against every input (each shard, the WARC) and each other, and
    writable; the trail can be chained on (:mod:`rep_recheck.files`). With several
    shards, ``--out`` and ``--removed`` are folders: each shard's own file in them is
    checked, and the files of a previous run there that this one does not write
    (:func:`previous_outputs`); the folders, with those files. Raises
    :class:`PathError`, :class:`TrailFileError` and :class:`ShardError`."""
    stdin = shards.paths == [STDIN]
    what = "a shard of the dataset" if shards.several else "the dataset"
    inputs = [] if stdin else [(what, Path(path)) for path in shards.paths]
    for warc in options.documents or ():
        inputs.append(("the WARC of --documents", Path(warc)))
    given = [(name, str(getattr(options, name))) for name in OUTPUTS
             if getattr(options, name, None)]  # fmt: skip
    for name, path in given:
        if Path(path).resolve().name == MANIFEST:  # through a symlink too
            raise PathError(f"--{name} {path}: {MANIFEST} is the manifest a recheck writes in "
                            "a folder of its outputs, which would replace this file: name "
                            "another")  # fmt: skip
    folders = [(name, path) for name, path in given if name in ("out", "removed")]
    check_folders(shards, folders)
    outputs = []
    for name, path in given:
        if shards.several and name in ("out", "removed"):
            outputs += [(name, output_of(path, shard)) for shard in shards.paths]
        else:
            outputs.append((name, Path(path)))
    for name, target in outputs:
        _compression_known(name, target)
    check_paths(inputs, outputs, stdin=0 if stdin else None)
    if options.trail:
        try:
            check_trail(Path(options.trail))  # locked, no trail, or ending with a cut line
        except TrailFileError as error:
            raise PathError(f"--trail {error}") from None
    names = [Path(shard).name for shard in shards.paths]
    others = [Path(path) for name, path in given if name not in ("out", "removed")]
    return {path: previous_outputs(name, Path(path), names, SUFFIXES, inputs, others)
            for name, path in folders if shards.several}  # fmt: skip


#: What each output that is written as it is holds, as a refusal of a compressed name says.
_UNCOMPRESSED: Final = {"report": "JSON Lines", "summary": "Markdown"}


def _compression_known(option: str, path: Path) -> None:
    """Raise :class:`PathError` for an output whose name says a compression
    (:data:`~rep_recheck.datasets.COMPRESSIONS`) it would not be written in: ``--report``
    and ``--summary`` are written uncompressed (a report named ``.jsonl.gz`` would be
    read as a gzip shard by a later run of its folder); ``--out`` and ``--removed`` are
    written so, and zstd needs its module (a line naming it, before any work)."""
    compression = compression_of(path)
    if compression and option in _UNCOMPRESSED:
        raise PathError(f"--{option} {path}: written uncompressed ({_UNCOMPRESSED[option]}), "
                        f"not as {path.suffix} says: name it without {path.suffix}")  # fmt: skip
    if compression == "zstd" and option in ("out", "removed"):
        try:
            zstd_module()
        except DatasetError as error:
            raise PathError(f"--{option} {path}: {error}") from None
