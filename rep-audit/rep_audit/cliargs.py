"""The ``audit`` command line as a row (pure; :class:`rep_engine.commandline.Tool`): its
exit codes, each command's help, synopsis and options, from which every door of it is
made (``python -m scrapy_rep audit``, ``rep-audit``, ``python -m rep_audit``, ``scrapy
rep-audit``, and its rows in ``python -m scrapy_rep --help``); :mod:`rep_audit.cli` runs
them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from rep_audit.html import MAX_ROWS
from rep_audit.listing import FORMATS, LIST_FATES, LIST_REASONS
from rep_engine.commandline import Tool

EXIT_CLEAN: Final = 0
EXIT_DIFFERENCES: Final = 1
EXIT_UNUSABLE: Final = 2
EXIT_UNPROVEN: Final = 3
#: What each exit status means, for every command.
_EXIT_MEANINGS: Final[Mapping[int | str, str]] = {
    EXIT_CLEAN: "done; verify: the trail is whole and every decision re-derives the same "
    "(events, such as a repair after a cut, are listed); repair: repaired, or nothing cut",
    EXIT_DIFFERENCES: "verify: problems found (chain broken, snapshot missing or altered, a "
    "decision that differs, a tree head that does not hold; with --export, an export line "
    "that differs); check-bundle: a line not proved, a record left out, a signature or a "
    "decision that does not hold, too few witnesses, a checkpoint of another log than "
    "--log's; show: no record of that URL; report: verify found problems; witness: the "
    "checkpoint refused (not its log's, or not an extension of the one it cosigned); cosign: "
    "a witness refused",
    EXIT_UNUSABLE: "unusable input: a missing file, not a trail, a wrong argument; repair: "
    "a trail a crawl is writing (locked), damaged otherwise than by a cut at its end, or "
    "that cannot be written (the file is left as it was); bundle: no record of the site up "
    "to the tree head (the trail's sites close to it named); check-bundle: a quorum of "
    "witnesses that stops no split view, or witnesses and no log named (--log); witness: "
    "its state locked by another request for too long (nothing cosigned)",
    EXIT_UNPROVEN: "check-bundle: nothing found wrong, but nothing proven: the tree head was "
    "not checked against the operator's key (no --key, an unsigned head, or a --key that "
    "holds a private key), or the bundle holds no record of the site (--unsigned asks for a "
    "check without a key by name: 0)",
}

#: Each command, with what it does (its ``--help``, and ``python -m scrapy_rep --help``).
HELPS: Final = {
    "summary": "counts per origin, per purpose and per deciding signal",
    "verify": "check the hash chain and snapshots; re-derive every decision",
    "show": "the whole story of one URL",
    "list": "every request, its fate and why, filtered (--fate, --reason)",
    "report": "write one self-contained HTML page (--html FILE)",
    "repair": "drop the cut line at the end of a trail, recorded in a repair line",
    "export": "the preferences of every kept page and stored file, one JSON line each",
    "bundle": "one site's records, each proved against the signed tree head (--site)",
    "check-bundle": "check a site's bundle alone: proofs, signature (--key), decisions",
    "witness": "cosign a checkpoint only if it extends the last one cosigned",
    "cosign": "gather witnesses' cosignatures of the trail's tree head",
    "vkey": "print a key's verifier key (signed-note) under a name",
}
COMMANDS: Final = tuple(HELPS)
#: Each command's arguments, as ``python -m scrapy_rep --help`` lists them.
SYNOPSES: Final = {
    "summary": "TRAIL...",
    "verify": "TRAIL... [--workers | --separate]",
    "show": "TRAIL... URL",
    "list": "TRAIL... [--fate F] [--reason R] [--format text|csv|jsonl]",
    "report": "TRAIL... --html FILE [--workers | --separate]",
    "repair": "TRAIL",
    "export": "TRAIL [--run RUN]",
    "bundle": "TRAIL --site ORIGIN [--out FILE] [--at LINE] [--cosigned FILE]",
    "check-bundle": "BUNDLE [--key KEY] [--log VKEY --witness VKEY...]",
    "witness": "REQUEST --key KEY --name NAME --state DIR --log VKEY...",
    "cosign": "TRAIL --witness VKEY COMMAND... --out FILE [--at LINE]",
    "vkey": "KEY --name NAME [--witness]",
}


#: The commands of one file (a trail, ``check-bundle``'s bundle, a witness's request).
_ONE: Final = ("repair", "export", "bundle", "check-bundle", "witness", "cosign", "vkey")
#: The ``TRAIL`` argument of ``repair`` and ``export`` (one file), and of the others.
_ONE_TRAIL: Final[dict[str, Any]] = {
    "metavar": "TRAIL",
    "help": "the trail file (.jsonl or .jsonl.gz)",
}
_TRAILS: Final[dict[str, Any]] = {
    "metavar": "TRAIL",
    "nargs": "+",
    "help": "the trail file (.jsonl or .jsonl.gz); several: read together (each chain "
    "checked on its own), a crawl's workers' trails checked against each other (separate "
    "crawls told apart by their runs' headers)",
}
#: How ``verify`` and ``report`` read several trails: as their runs' headers tell, or as
#: one of these says (docs/audit-trail.md, "Several workers").
_CRAWLS: Final[tuple[tuple[str, dict[str, Any]], ...]] = (
    (
        "--workers",
        {
            "action": "store_true",
            "help": "several trails: check them against each "
            "other as workers of one crawl, whatever their runs' headers say",
        },
    ),
    (
        "--separate",
        {
            "action": "store_true",
            "help": "several trails: each a crawl of its own, none checked against another",
        },
    ),
)
_KEY_HELP: Final = (
    "the operator's public key (PEM, a JWK, or the JWK Set it publishes): each tree head's "
    "signature is checked with it"
)
#: The one file of the commands whose file is no trail.
_FILES: Final[dict[str, dict[str, Any]]] = {
    "check-bundle": {"metavar": "BUNDLE", "help": "a site's bundle (audit bundle)"},
    "witness": {"metavar": "REQUEST", "help": "an add-checkpoint request (c2sp.org/tlog-"
                "witness: 'old SIZE', the consistency proof, a blank line, the checkpoint); "
                "-: standard input"},
    "vkey": {"metavar": "KEY", "help": "an Ed25519 key, or a witness's ML-DSA-44 key (its "
             "public half is used)"},
}  # fmt: skip
_AT: Final[dict[str, Any]] = {
    "metavar": "LINE",
    "type": int,
    "help": "the tree head to prove "
    "against, by its line in the trail (verify names the last): an "
    "earlier one, as a site was shown it then (default: the last)",
}
#: Each command's own arguments, after ``TRAIL``: their names and ``add_argument``'s keywords.
OPTIONS: Final[dict[str, tuple[tuple[str, dict[str, Any]], ...]]] = {
    "verify": (
        *_CRAWLS,
        ("--head", {"metavar": "SHA256|FILE", "action": "append", "default": [],
                    "help": "a head printed by an earlier verify (the hash of a line) or "
                    "the root the crawl logged as it closed: it must still be the hash of a "
                    "line, or the root of the lines before a tree head; or "
                    "REP_AUDIT_HEAD_FILE: each tree head of the trail it holds must still "
                    "be that of the lines it covers (repeatable)"}),
        ("--key", {"metavar": "KEY", "help": _KEY_HELP}),
        ("--json", {"action": "store_true", "help": "one JSON object: counts, head, findings"}),
        ("--export", {"metavar": "FILE", "help": "also check an `audit export` of the trail: "
                      "every line as the trail gives it"}),
    ),
    "export": (
        ("--out", {"metavar": "FILE", "help": "the export (default: stdout)"}),
        ("--summary", {"metavar": "FILE", "help": "the Markdown summary (default: stderr)"}),
        ("--run", {"metavar": "RUN", "default": "", "help": "only this run (its id, or the "
                   "start of it), as it decided (default: every run; a recheck's items as "
                   "the latest run that re-checked them decided them)"}),
    ),
    "bundle": (
        ("--site", {"metavar": "ORIGIN", "required": True,
                    "help": "the site (https://example.com): its records alone"}),
        ("--out", {"metavar": "FILE", "help": "the bundle (default: stdout)"}),
        ("--at", _AT),
        ("--cosigned", {"metavar": "FILE", "action": "append", "default": [],
                        "help": "a checkpoint cosigned by witnesses (audit cosign) of this "
                        "head or an earlier one: its cosignatures go in the bundle"}),
    ),
    "check-bundle": (
        ("--key", {"metavar": "KEY", "help": _KEY_HELP}),
        ("--unsigned", {"action": "store_true", "help": "check it without a key, by name: "
                        "exit 0 when nothing is found wrong, though nothing shows who made it "
                        "(without --key or this: exit 3)"}),
        ("--since", {"metavar": "OLD_BUNDLE", "help": "an earlier bundle of the same trail: "
                     "this one's trail must start with its (the trail only grew)"}),
        ("--log", {"metavar": "VKEY", "help": "the log's verifier key, as its operator "
                   "publishes it and its witnesses are given it (audit vkey: named after its "
                   "origin; or a file holding it): the tree head's checkpoint must be that "
                   "log's, signed by that key (required with --witness, or a --policy "
                   "without log lines: a second log signed by the same key would pass)"}),
        ("--witness", {"metavar": "VKEY", "action": "append", "default": [],
                       "help": "a witness you trust, by its verifier key (or a file holding "
                       "it): its cosignature of a checkpoint the bundle's proofs lead to is "
                       "required (repeatable; one vote a key)"}),
        ("--quorum", {"metavar": "N", "type": int, "help": "how many of the witnesses must "
                      "have cosigned (default: all given; half of them or fewer stops no "
                      "split view: refused without --allow-split-view)"}),
        ("--policy", {"metavar": "FILE", "help": "the witnesses required, as a "
                      "c2sp.org/tlog-policy file (log, witness, group and quorum lines), "
                      "instead of --witness and --quorum"}),
        ("--allow-split-view", {"action": "store_true", "dest": "allow_split",
                                "help": "accept a quorum that two sets of witnesses sharing "
                                "none can each meet (a majority of them stops a split view; "
                                "this does not)"}),
    ),
    "witness": (
        ("--key", {"metavar": "KEY", "required": True, "help": "the witness's private key, "
                   "ML-DSA-44 (its cosignatures of type 0x06, as tlog-witness advises) or "
                   "Ed25519 (0x04): its own, never a log operator's"}),
        ("--name", {"metavar": "NAME", "required": True, "help": "the witness's name "
                    "(a schema-less URL: witness.example/w1)"}),
        ("--state", {"metavar": "DIR", "required": True, "help": "the folder where the "
                     "witness keeps the last checkpoint it cosigned of each log"}),
        ("--log", {"metavar": "VKEY", "action": "append", "required": True, "help": "a log "
                   "it cosigns: its verifier key, named after its origin (audit vkey); "
                   "several for one origin: a checkpoint signed by any of them (a key "
                   "rotated)"}),
    ),
    "cosign": (
        ("--witness", {"metavar": ("VKEY", "COMMAND"), "nargs": 2, "action": "append",
                       "required": True, "help": "a witness: its verifier key (or a file "
                       "holding it), with which its answer is checked, and the command that "
                       "asks it: the request on its standard input, its cosignature on its "
                       "output (repeatable)"}),
        ("--out", {"metavar": "FILE", "required": True,
                   "help": "the checkpoint with the cosignatures gathered"}),
        ("--at", _AT),
    ),
    "vkey": (
        ("--name", {"metavar": "NAME", "required": True, "help": "the key's name: the "
                    "log's origin (verify names it), or the witness's name"}),
        ("--witness", {"action": "store_true", "help": "a witness's key, for its "
                       "cosignatures (type 0x04 of an Ed25519 key, 0x06 of an ML-DSA-44 "
                       "key; default: a log's, 0x01)"}),
    ),
    "show": (("url", {"metavar": "URL", "help": "the URL (or request id)"}),),
    "list": (
        ("--fate", {"action": "append", "default": [], "metavar": "FATE",
                    "help": f"only these fates (repeatable, or comma-separated): "
                    f"{', '.join(LIST_FATES)} (dropped: a fetched page whose items were "
                    "dropped; kept, refused, unknown: a recheck's items too)"}),
        ("--reason", {"action": "append", "default": [], "metavar": "REASON",
                      "help": "only these reasons (repeatable, or comma-separated): "
                      f"{', '.join(LIST_REASONS)}"}),
        ("--format", {"choices": FORMATS, "default": "text", "help": "default: text"}),
    ),
    "report": (
        *_CRAWLS,
        ("--html", {"metavar": "FILE", "required": True, "help": "the page to write"}),
        ("--max-rows", {"type": int, "default": MAX_ROWS,
                        "help": f"table rows at most (default: {MAX_ROWS})"}),
    ),
}  # fmt: skip


#: The ``audit`` tool: each command a row of its own, its ``TRAIL`` (or other file) first.
TOOL: Final = Tool(
    name="audit",
    synopsis="COMMAND TRAIL...",
    summary="read an audit trail",
    about="Read a scrapy_rep audit trail (REP_AUDIT_FILE, .jsonl or .jsonl.gz): the TRAIL "
    "files named (under scrapy, with none named, the project's REP_AUDIT_FILE). summary, "
    "verify, show, list and report take several TRAIL files: read together (a crawl's "
    "workers' trails checked as one, separate crawls' told apart).",
    exits=_EXIT_MEANINGS,
    runner="rep_audit.cli:run",
    commands=tuple(
        Tool(name, SYNOPSES[name], said, said, {}, (
            ("trail", _FILES.get(name, _ONE_TRAIL) if name in _ONE else _TRAILS),
            *OPTIONS.get(name, ()),
        ))
        for name, said in HELPS.items()
    ),
    scrapy="rep-audit",
)  # fmt: skip
