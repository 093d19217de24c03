"""``audit check-bundle``: a site's bundle (:mod:`rep_audit.bundle`) checked by the site's
owner, with neither the trail nor Scrapy (the engine and the audit tools installed from a
clone or their wheels: docs/publishers.md) (pure).

1. The tree head is signed by the operator's key (``--key``: the public key, PEM, a JWK,
   or the JWK Set the operator publishes; without it, the signature is not checked and
   nothing is proven, said first: exit 3, unless ``--unsigned`` asks for that check).
2. Each line is the trail's line at its number: its inclusion proof holds against the
   head's root (RFC 9162 §2.1.3.2), the lines in the trail's order, each once.
3. Each record is of the site, and none of the site's is left out: each record's
   ``site_prev`` is the bundle's record of the site before it in its run, and each run's
   ``site`` line counts them and names the last (a run of an earlier release, whose
   records have no ``site_prev``, is counted by the ``site`` line a later run wrote for
   it: one left out is found, not named).
4. Each decision is re-derived from the bundle's snapshots with the engine, as ``audit
   verify`` re-derives it (:class:`rep_audit.verify.Verifier`).
5. ``--since OLD``: the tree of an earlier bundle's head is the start of this one's (a
   consistency proof, RFC 9162 §2.1.4.2): the trail only grew.

It prints a line per record (what was fetched, when, under which robots.txt line, its
fate, each declared purpose's answer and the line that decided it), a line per run that
could be steered from outside, each problem as it is found (naming the record's line), and
a verdict; the exit status is :mod:`rep_audit.cliargs`'s (0 clean, 1 problems, 2
unusable, 3 nothing found wrong but not proven).
"""

from __future__ import annotations

import base64
import binascii
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from rep_audit.bundle import BUNDLE, VERSION
from rep_audit.cliargs import EXIT_CLEAN, EXIT_DIFFERENCES, EXIT_UNPROVEN
from rep_audit.findings import Finding
from rep_audit.policy import GIVEN, NONE, Policy, PolicyError, given, read_policy, split_view
from rep_audit.runcontext import steering
from rep_audit.treeheads import key_file, signature_problem
from rep_audit.verify import Verifier
from rep_audit.witness import verifies, witness_keys, witnessed
from rep_engine.keys import holds_private_key, public_keys, raw_public
from rep_engine.records import (
    RESPONSE_FATES,
    FateRecord,
    ItemStatus,
    Reason,
    RobotsPart,
    answers_said,
    describe,
    mapping,
    text,
    whole,
)
from rep_engine.trail import notes
from rep_engine.trail.file import SITE_RECORDS, site_of, snapshot_dir
from rep_engine.trail.merkle import leaf_hash, verify_consistency, verify_inclusion
from rep_engine.trail.read import Line, Trail, TrailError, json_object
from rep_engine.trail.terminal import printable


def load(path: str) -> dict[str, Any]:
    """The bundle at ``path``, its shape checked; :class:`TrailError` when it is none."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:  # a file that is not there is not said to be no bundle
        raise TrailError(f"{path}: cannot be read ({error.strerror or error})") from None
    try:
        bundle = json.loads(data)
        head = bundle["head"]
        if (bundle["bundle"], bundle["version"]) != (BUNDLE, VERSION):
            raise ValueError(f"{bundle['bundle']!r} version {bundle['version']!r}")
        if (
            type(head["size"]) is not int
            or head["size"] < 0
            or len(bytes.fromhex(head["root"])) != 32
        ):
            raise ValueError("its head has no size or root")
        if not isinstance(bundle["snapshots"], dict):
            raise ValueError("its snapshots are not an object")
        for line in bundle["lines"]:
            if type(line["line"]) is not int or not isinstance(line["text"], str):
                raise ValueError(f"a line without its number or text: {str(line)[:80]}")
            if json_object(line["text"].encode()) is None:  # a lone surrogate too
                raise ValueError(f"its line {line['line']} is no line of a trail (JSON)")
            line["proof"] = [bytes.fromhex(node) for node in line["proof"]]
        for entry in bundle["consistency"]:
            entry["proof"] = [bytes.fromhex(node) for node in entry["proof"]]
            if type(entry["size"]) is not int or len(bytes.fromhex(entry["root"])) != 32:
                raise ValueError("an earlier head without its size or root")
        bundle["snapshots"] = {
            sha: base64.b64decode(body, validate=True) for sha, body in bundle["snapshots"].items()
        }
        bundle.setdefault("cosigned", [])  # a bundle made before witnesses
        if not isinstance(bundle["site"], str):
            raise ValueError("its site is not text")
        for note in bundle["cosigned"]:
            notes.read_note(note)  # TypeError, or NoteError: a ValueError
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError,
            binascii.Error) as error:  # fmt: skip
        raise TrailError(f"{path}: not a site bundle ({type(error).__name__}: {error})") from None
    return bundle  # type: ignore[no-any-return]


class BundleCheck:
    """One bundle checked, its lines fed in order; each problem printed to ``out``."""

    def __init__(self, bundle: dict[str, Any], folder: Path, out: TextIO) -> None:
        self.bundle, self.site, self.out = bundle, text(bundle["site"]), out
        self.problems = 0
        snapshots = snapshot_dir(folder / "bundle")
        snapshots.mkdir()
        for sha, body in bundle["snapshots"].items():
            if len(sha) == 64 and sha.isalnum():  # a name, never a path
                (snapshots / sha).write_bytes(body)
        (folder / "bundle").write_bytes(b"")
        self.verifier = Verifier(Trail(folder / "bundle"), self.said, 0, tree=False)
        #: Each run's records of the site so far (how many, the line of the last), and the
        #: runs whose header says they write sites' chains (schema 3 on).
        self.chains: dict[str, tuple[int, int]] = {}
        self.chained: set[str] = set()
        #: The runs of its records written before sites' chains (schemas 1 and 2: no
        #: ``site_prev``, and a header that does not say schema 3).
        self.unchained: set[str] = set()
        self.records = 0
        self.last = 0
        #: The runs that could be steered from outside (:func:`steering`).
        self.steered = 0
        #: Each run line's number and schema, the runs of a record or site line of the
        #: site, the robots.txt snapshots the records name (line, URL, run, SHA-256), those
        #: of the bundle's snapshot lines, the records of other sites' URLs sent to the
        #: site (their ``Host`` addressed it), and the time of the last record.
        self.headers: dict[str, tuple[int, int]] = {}
        self.accounted: set[str] = set()
        self.robots: list[tuple[int, str, str, str]] = []
        self.announced: set[str] = set()
        self.addressed = 0
        self.latest = ""

    def said(self, finding: Finding) -> None:
        self.problems += not finding.event
        print(printable(str(finding)), file=self.out)

    def add(self, line: int, url: str, what: str) -> None:
        self.said(Finding(line, url, what))

    def feed(self, entry: dict[str, Any]) -> None:
        number, head = entry["line"], self.bundle["head"]
        raw = entry["text"].encode() + b"\n"
        record = json_object(raw) or {}
        url, run, kind = text(record.get("url")), text(record.get("run")), text(record.get("type"))
        if kind in SITE_RECORDS:
            self.records += 1
            print(printable(f"line {number}: {url}: {self._story(record, run)}"), file=self.out)
        if number <= self.last:
            self.add(number, url, f"out of the trail's order (after line {self.last}): the "
                     "bundle's lines were reordered, or one is there twice")  # fmt: skip
        self.last = max(self.last, number)
        if not verify_inclusion(leaf_hash(raw), number - 1, head["size"], entry["proof"],
                                bytes.fromhex(head["root"])):  # fmt: skip
            self.add(number, url, "its proof does not hold against the tree head: it is not "
                     "that line of the trail the head was signed over (changed, added or "
                     "moved)")  # fmt: skip
        if kind == "run":
            if said := steering(record):
                self.steered += 1
                print(printable(f"line {number}: {said}"), file=self.out)
            self.headers[run] = (number, whole(record.get("schema")) or 1)
            if self.headers[run][1] >= 3:
                self.chained.add(run)
        elif kind == "snapshot":
            self.announced.add(text(record.get("sha256")))
        elif kind in SITE_RECORDS:
            self._record(number, record, run)
        elif kind == "site":
            self.accounted.add(run)
            self._site(number, record, run)
            return
        self.verifier.feed(Line(number, raw, record or None))

    def _record(self, number: int, record: dict[str, Any], run: str) -> None:
        url, robots = text(record.get("url")), mapping(record.get("robots"))
        self.accounted.add(run)
        self.latest = max(self.latest, text(record.get("time")))
        for sha in (text(robots.get("snapshot")), text(robots.get("also"))):
            if sha:
                self.robots.append((number, url, run, sha))
        if site_of(url) != self.site and robots.get("addressed") == self.site:
            self.addressed += 1  # chained under its URL's site, not this one's
            return
        if site_of(url) != self.site:
            self.add(number, url, f"a record of {site_of(url) or 'no site'}, not of {self.site}")
        count, last = self.chains.get(run, (0, 0))
        self.chains[run] = (count + 1, number)
        if "site_prev" not in record and run not in self.chained:  # its run line is proved
            self.unchained.add(run)
            return
        said = record.get("site_prev")
        if said != last:
            before = f"line {last}" if last else "none"
            self.add(number, url, f"its site_prev names line {said!r}, the bundle's record of "
                     f"the site before it in run {run[:8]} is {before}: the record at line "
                     f"{said!r} was left out (or this one added)")  # fmt: skip

    def _site(self, number: int, record: dict[str, Any], run: str) -> None:
        count, last = self.chains.pop(run, (0, 0))
        said, said_last = record.get("records"), record.get("last")
        if record.get("site") != self.site:
            self.add(number, "", f"the site line of {record.get('site')!r}, not {self.site}")
        elif (said, said_last) != (count, last):
            which = (f"the record at line {said_last!r}, its last" if said_last != last else
                     "a record before its last")  # fmt: skip
            self.add(number, "", f"run {run[:8]} wrote {said!r} record(s) of the site, the last "
                     f"at line {said_last!r}; the bundle holds {count}, the last at line "
                     f"{last}: {which}, was left out (or one added)")  # fmt: skip

    def _story(self, record: dict[str, Any], run: str) -> str:
        """What was done, when, under which robots.txt line; and for each purpose the crawl
        declared, its answer and the line that decided it, as ``audit show`` says them
        (:func:`~rep_engine.records.describe`)."""
        kind, answered = text(record.get("type")), bool(record.get("usage"))
        state = self.verifier.runs.get(run)
        purposes = state.context.purposes if state is not None else ()
        if kind == "url":
            described = describe(FateRecord.of(record).entry, purposes)
            said, answers = described.state, described.answers
            noted = described.dropped and Reason.of(described.reason) is not Reason.PURPOSE
            if noted and described.why:  # its noindex, unavailable_after (a purpose's: below)
                said += f" ({described.why})"
            answered |= described.entry.fate in RESPONSE_FATES  # its items decided for each
        else:
            fate = text(record.get("fate") if kind != "item" else record.get("status"))
            said = f"file {fate}" if kind == "file" else f"item {fate} (re-checked)"
            answers = answers_said(record.get("usage"), purposes)
            answered |= kind == "item" and ItemStatus.of(fate) is ItemStatus.KEPT
        if record.get("refused_by"):
            said += f" by {text(record.get('refused_by'))}"
        when = text(record.get("sent_at"))
        said += f", sent {when}" if when else f", recorded {text(record.get('time'))}"
        robots = RobotsPart.from_part(mapping(record.get("robots")))
        if robots.line is not None:
            said += f"; robots.txt line {robots.line} {robots.rule!r} for {robots.agent}"
        elif robots.why:
            said += f"; robots.txt: {robots.why}"
        if answered:
            return "; ".join((said, *answers))
        return said + (f"; purposes {', '.join(purposes)}" if state is not None else "")

    def finish(self) -> None:
        for run in sorted(self.unchained):
            print(
                f"run {run[:8]}: written before sites' chains (schema 1 or 2): its records "
                "are counted by the site line a later run wrote; one left out is found, not "
                "named",
                file=self.out,
            )
        for run, (count, last) in self.chains.items():
            self.add(last, "", f"run {run[:8]}: the bundle holds {count} record(s) of the site "
                     "and no site line: it cannot show none was left out")  # fmt: skip
        for run, (number, _) in self.headers.items():
            if run not in self.accounted:  # a bundle holds the header of a run of records
                self.add(number, "", f"run {run[:8]}: its header is in the bundle, but none "
                         "of its records of the site nor its site line: they were left "
                         "out")  # fmt: skip
        for number, url, run, sha in self.robots:
            if self.headers.get(run, (0, 1))[1] >= 2 and sha not in self.announced:
                self.add(number, url, f"names the robots.txt snapshot {sha[:12]}…, whose "
                         "snapshot line is not in the bundle: it was left out")  # fmt: skip
        if self.addressed:
            print(f"{self.addressed} record(s) of other sites' URLs sent with a Host "
                  f"addressing {self.site}: chained under their URL's site, not this one's: "
                  "one left out is not found", file=self.out)  # fmt: skip
        self.verifier.flush()


def _witnessed(check: BundleCheck, policy: Policy | None, key: bytes | None, source: str,
               split: str) -> None:  # fmt: skip
    """The witnesses' cosignatures of ``check``'s bundle, said, and a problem unless those
    that count meet ``policy``'s quorum (:func:`rep_audit.witness.witnessed`); without a
    policy, or with a quorum that stops no split view (``split``: why), said so."""
    if policy is not None and (problem := _signed_by_a_log(check.bundle["head"], policy)):
        check.add(0, "", problem)
    if policy is None or policy.quorum == NONE:
        why = "the policy's quorum is none" if policy else "none given (--witness, --policy)"
        print(f"witnesses: {why}: not checked: a history its operator rewrote and signed "
              "again is not ruled out", file=check.out)  # fmt: skip
        return
    operators = [raw_public(k) for k in public_keys(key, source)] if key is not None else []
    operators += [log.public for log in policy.logs]
    told, counted, problems = witnessed(check.bundle, policy, operators, check.latest)
    for line in told:
        print(printable(line), file=check.out)
    for problem in problems:
        check.add(0, "", problem)
    if split:
        print(printable(f"witnesses: {split}: a split view is not ruled out "
                        "(--allow-split-view)"), file=check.out)  # fmt: skip
    if not policy.met(counted):
        check.add(0, "", f"{len(counted)} of the {len(policy.witnesses)} witness(es) given "
                  f"cosigned, too few for the quorum ({_quorum(policy)}): this history may "
                  "be one its operator rewrote")  # fmt: skip


def _signed_by_a_log(head: dict[str, Any], policy: Policy) -> str:
    """What is wrong with the head's checkpoint as one of ``policy``'s logs signed it
    (``""``: a key of its ``log`` lines signed it, and no signature of theirs fails; or it
    names no log):
    c2sp.org/tlog-policy, "a checkpoint is considered valid if it is signed by any one of
    the listed logs"."""
    if not policy.logs:
        return ""
    try:
        body, signatures = notes.read_note(text(head.get("checkpoint")))
    except notes.NoteError:
        return "the policy names its logs, and the tree head has no checkpoint"
    checked = [verifies(log, s.signature, body) for s in signatures for log in policy.logs
               if (s.name, s.key_id) == (log.name, log.key_id)]  # fmt: skip
    if not checked or not all(checked):
        return ("the tree head's checkpoint is not signed by a log of the policy's (its log "
                "lines), or holds a signature of one that does not verify")  # fmt: skip
    return ""


def _quorum(policy: Policy) -> str:
    """The quorum in words: ``2 of 3`` for ``--witness``'s, the policy's by name."""
    if policy.quorum == GIVEN:
        threshold, members = policy.groups[GIVEN]
        return f"{threshold} of {len(members)}"
    return f"the policy's {policy.quorum!r}"


def witness_policy(
    witness: Sequence[str], quorum: int | None, policy: str | None, allow_split: bool
) -> tuple[Policy | None, str]:
    """The witnesses required (``--witness … --quorum N``, or ``--policy FILE``: one of
    the two), and why their quorum stops no split view (``""``: it does); a quorum that
    stops none is refused unless ``allow_split`` (``--allow-split-view``) says so.
    Raises :class:`TrailError` for one that cannot be used."""
    if policy and (witness or quorum is not None):
        raise TrailError("give --policy, or --witness (and --quorum), not both")
    try:
        found = read_policy(policy) if policy else None
        if witness or quorum is not None:
            found = given(witness_keys(list(witness)), quorum)
    except PolicyError as error:
        raise TrailError(error) from None
    split = split_view(found) if found is not None else ""
    if split and not allow_split:
        raise TrailError(f"{split}: two sets of them that share no witness can each meet it, "
                         "so the operator can show each its own history and both pass (a "
                         "split view; c2sp.org/tlog-cosignature); require a majority, or "
                         "say --allow-split-view")  # fmt: skip
    return found, split


def _since(bundle: dict[str, Any], old: dict[str, Any]) -> str:
    """What is wrong with ``bundle``'s head as a later one than ``old``'s (``""``: its
    tree starts with old's, and it is not dated before it)."""
    new_head, old_head = bundle["head"], old["head"]
    m, n = old_head["size"], new_head["size"]
    origins = [text(head.get("checkpoint")).partition("\n")[0] for head in (old_head, new_head)]
    if all(origins) and origins[0] != origins[1]:
        return (f"this bundle's log is {origins[1]}, the earlier bundle's {origins[0]}: a "
                "log renamed starts a history no witness holds to the old one")  # fmt: skip
    proofs = [entry for entry in bundle["consistency"] if entry.get("size") == m]
    if m == n:
        if old_head["root"] != new_head["root"]:
            return f"both heads cover {n} line(s), with other roots: rewritten"
    elif m > n or not proofs or proofs[0].get("root") != old_head["root"]:
        return (f"the earlier bundle's head ({m} line(s), root {str(old_head['root'])[:16]}…) "
                "is not a head of this trail before this one's: the trail was rewritten, or "
                "the bundles are of two trails")  # fmt: skip
    elif not verify_consistency(m, n, bytes.fromhex(old_head["root"]),
                                bytes.fromhex(new_head["root"]), proofs[0]["proof"]):  # fmt: skip
        return f"the trail's first {m} line(s) are not those of the earlier head: rewritten"
    if text(new_head.get("time")) < text(old_head.get("time")):
        return (f"this bundle's tree head is dated {text(new_head.get('time'))}, before "
                f"the earlier bundle's ({text(old_head.get('time'))}): its time was "
                "rewritten")  # fmt: skip
    return ""


def check_bundle(
    path: str, out: TextIO, key: str | None = None, since: str | None = None,
    unsigned: bool = False, witness: Sequence[str] = (), quorum: int | None = None,
    policy: str | None = None, allow_split: bool = False,
) -> int:  # fmt: skip
    """``audit check-bundle BUNDLE [--key KEY | --unsigned] [--since OLD] [--witness
    VKEY… [--quorum N] | --policy FILE] [--allow-split-view]``: the exit status. Raises
    :class:`TrailError` when a file cannot be used."""
    bundle = load(path)
    head = bundle["head"]
    key_data = key_file(key)
    old = load(since) if since else None
    witnesses, split = witness_policy(witness, quorum, policy, allow_split)
    unchecked = "" if key_data is not None else _unchecked(head, unsigned)
    leaked = key_data is not None and holds_private_key(key_data)
    if leaked:
        unchecked = (f"NOT PROVEN: --key {key} holds a private key, not the public key the "
                     "operator publishes: whoever gave you that file, or saw it, can sign a "
                     "bundle as the operator, so the signature shows nothing of who made this "
                     "one (ask the operator for their public key, and tell them this one "
                     "leaked)")  # fmt: skip
    if unchecked:
        print(printable(unchecked), file=out)
    with tempfile.TemporaryDirectory() as folder:
        check = BundleCheck(bundle, Path(folder), out)
        problem, signed = signature_problem(head, key_data, str(key))
        if problem or (key_data is not None and signed == "unsigned"):
            check.add(0, "", problem or "--key was given, but the tree head is unsigned")
        if old is not None and (problem := _since(bundle, old)):
            check.add(0, "", f"--since {since}: {problem}")
        for entry in bundle["lines"]:
            check.feed(entry)
        check.finish()
        if text(head.get("time")) < check.latest:
            check.add(0, "", f"the tree head is dated {text(head.get('time'))}, before the "
                      f"records it covers (the last at {check.latest}): its time was "
                      "rewritten")  # fmt: skip
        _witnessed(check, witnesses, key_data, str(key), split)
    status, verdict = _verdict(check, leaked, bool(unchecked), unsigned)
    steered = f"; {check.steered} run(s) could be steered from outside" if check.steered else ""
    print(printable(f"{path}: {verdict}: {check.records} record(s) of {check.site}, proved "
                    f"against the tree head over the trail's first {head['size']} line(s) "
                    f"({_dated(head, signed)}), {signed}{steered}"), file=out)  # fmt: skip
    return status


def _dated(head: dict[str, Any], signed: str) -> str:
    """The head's time, and whether a signature covers it: a checkpoint has no time
    (c2sp.org/tlog-checkpoint; a witness's cosignature carries its own, signed); a head
    written before checkpoints signed its time with its size and root."""
    when = text(head.get("time"))
    if head.get("checkpoint") is None and signed.endswith(", checked with --key"):
        return f"dated {when}, signed with it"
    return f"dated {when} by its writer: no signature covers its time"


def _verdict(check: BundleCheck, leaked: bool, unchecked: bool, unsigned: bool) -> tuple[int, str]:
    """The exit status and its word: a problem found, or clean only when proven (a
    record of the site, checked against the operator's public key, or ``--unsigned``
    asked for)."""
    if check.problems:
        return EXIT_DIFFERENCES, f"{check.problems} problem(s)"
    if not check.records:
        return EXIT_UNPROVEN, ("nothing found wrong, but not proven: it holds no record of "
                               "the site, so nothing shows none was left out")  # fmt: skip
    if leaked:
        return EXIT_UNPROVEN, "nothing found wrong, but not proven (--key is private)"
    if unchecked and not unsigned:
        return EXIT_UNPROVEN, "nothing found wrong, but not proven (no --key)"
    return EXIT_CLEAN, "clean" + (", unsigned check: who made it is not proven" if unsigned else "")


def _unchecked(head: dict[str, Any], unsigned: bool) -> str:
    """What was not checked of ``head`` without a key, the output's first line: who made
    the bundle (anyone can make one whose every proof holds against a head of their own)."""
    kid = head.get("key")
    if isinstance(kid, str) and (head.get("signature") or head.get("checkpoint")):
        which = (f"the tree head's signature (of key {kid}, it says) was not checked against "
                 "the operator's key", "give --key")  # fmt: skip
    else:
        which = ("the tree head is unsigned", "ask the operator for a signed one")
    if unsigned:
        return f"unsigned check (--unsigned): {which[0]}: nothing is proven about who made it"
    return (f"NOT PROVEN: {which[0]} ({which[1]}, or --unsigned to check it without a key): "
            "anyone could have made this bundle")  # fmt: skip
