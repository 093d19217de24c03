"""A trail's tree heads and its sites' chains (docs/audit-trail.md, "Tree heads"): the
operator's key read for the writers (:func:`head_options`), and ``audit verify``'s checks
of them (:class:`TreeChecks`) (pure).

``audit verify`` recomputes the Merkle tree over every line (RFC 9162 §2.1) and holds
each ``head`` line to it: its ``size`` the lines before it, its ``root`` theirs, its
``frontier`` the tree's, its signature the key's (``--key``: the operator's public key,
PEM, a JWK or the JWK Set it publishes; without it a signature is said, not checked);
each record's ``site_prev`` to its site's record before it in its run, and each ``site``
line to the run's records of its site (every record a head covers is counted by one
before it: a run of an earlier release, or killed before its end line, by the next run
to end); each head of ``REP_AUDIT_HEAD_FILE`` given with ``--head`` to the lines it
covers. A trail written before tree heads (schemas 1 and 2) has none: said, never a
finding.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from rep_engine import keys
from rep_engine.records import text, whole
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError
from rep_engine.trail import notes
from rep_engine.trail.file import (
    SITE_RECORDS,
    HeadOptions,
    TrailFileError,
    check_writable,
    first_line,
    last_line,
    origin_of_trail,
    same_file,
    signed_message,
    site_of,
    snapshot_dir,
)
from rep_engine.trail.merkle import Frontier, leaf_hash
from rep_engine.trail.read import Line, Trail, TrailError, json_object

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

#: What a trail without a head says (``audit verify``).
NO_HEAD: Final = (
    "no tree head: the trail was written before tree heads (schema 1 or 2); its lines are "
    "checked by their hash chain alone"
)


def head_options(config: RepConfig, trail: Path | None = None) -> HeadOptions:
    """How the trail at ``trail`` writes its heads (``REP_AUDIT_SIGNING_KEY``,
    ``REP_AUDIT_HEAD_FILE``): read as the crawl and the recheck start, so that a key that
    cannot be used or a head file that cannot be written stops them there. Raises
    :class:`RepSettingError` naming the setting."""
    sign = key = file = None
    public, origin = b"", config.audit_log_origin
    if origin and not notes.NAME.fullmatch(origin):
        raise RepSettingError(f"REP_AUDIT_LOG_ORIGIN: {origin!r} holds a space or a '+' "
                              "(c2sp.org/tlog-checkpoint: a schema-less URL)")  # fmt: skip
    if config.audit_signing_key:
        try:
            private = keys.read_private_key(config.audit_signing_key, config.allow_test_key)
        except keys.SigningKeyError as error:
            raise RepSettingError(f"REP_AUDIT_SIGNING_KEY: {error}") from None
        sign, key = private.sign, keys.thumbprint(private.public_key())
        public = keys.raw_public(private.public_key())
    if config.audit_head_file:
        file = Path(config.audit_head_file)
        try:
            check_writable(file)
        except TrailFileError as error:
            raise RepSettingError(f"REP_AUDIT_HEAD_FILE: {error}") from None
        if trail is not None and (
            same_file(file, trail) or snapshot_dir(trail).absolute() in file.absolute().parents
        ):
            raise RepSettingError(
                f"REP_AUDIT_HEAD_FILE: {file} is the trail or in its snapshot folder: keep "
                "the heads where the trail's keeper cannot rewrite them with it"
            )
        if trail is not None and key is not None:
            _one_writer(file, trail, origin or _default_origin(trail, key))
    return HeadOptions(sign, key, file, public, origin)


def _default_origin(trail: Path, key: str) -> str:
    """The origin the heads of ``trail`` get without ``REP_AUDIT_LOG_ORIGIN`` (``""``: a
    trail not written yet, whose first line, and so its origin, will be its own)."""
    try:
        first = first_line(trail) if trail.is_file() else None
    except (OSError, TrailFileError):
        first = None  # not a trail: said by the trail's own checks
    return origin_of_trail(key, hashlib.sha256(first).hexdigest()) if first else ""


def _one_writer(file: Path, trail: Path, origin: str) -> None:
    """One log, one writer: raise :class:`RepSettingError` when the head file holds a head
    of the log ``origin`` that ``trail`` does not hold (another trail's, or this one's
    before it was replaced), whose history the trail's next head would not extend: the
    key would sign two checkpoints of one log that no consistency proof joins
    (c2sp.org/tlog-checkpoint: "A log MUST not sign any checkpoint which is inconsistent
    with any checkpoint it previously signed"). The head file's latest head of the log is
    held to the trail's last line, and only when it is not that, to each of its heads."""
    if not origin or not file.is_file():
        return
    with file.open(encoding="utf-8", errors="replace") as lines:  # a line a run
        entries = [e for e in map(json_object, map(str.encode, lines)) if e is not None]
    entries = [entry for entry in entries if _origin(entry) == origin]
    if not entries:
        return
    latest = max(reversed(entries), key=lambda entry: whole(entry.get("size")) or 0)
    held = _tree_of(latest)
    last = json_object(last_line(trail) or b"") if trail.is_file() else None
    if last is not None and _tree_of(last) == held:
        return
    if trail.is_file() and any(
        line.type == "head" and _tree_of(line.record or {}) == held for line in Trail(trail).lines()
    ):
        return
    raise RepSettingError(
        f"REP_AUDIT_LOG_ORIGIN: the log {origin} is already {latest.get('trail')}'s: "
        f"REP_AUDIT_HEAD_FILE {file} holds its head of {latest.get('time')} over "
        f"{latest.get('size')} line(s), which {trail} does not hold: a second trail of one "
        "log makes the key sign two histories of it (c2sp.org/tlog-checkpoint); name "
        "another origin for this trail"
    )


def key_file(path: str | None) -> bytes | None:
    """The bytes of ``--key``'s file (``None``: none given), once they are seen to hold a
    public key or a JWK Set; :class:`TrailError` when they do not (unusable input)."""
    if not path:
        return None
    try:
        data = keys.read_key_file(path)
        document = json.loads(data) if data.lstrip()[:1] == b"{" else {}
        members = document.get("keys") if isinstance(document, dict) else None
        if not isinstance(members, list):
            keys.public_key(data, path)
        elif not any(isinstance(m, dict) and m.get("crv") == "Ed25519" for m in members):
            raise keys.SigningKeyError(f"{path}: a JWK Set with no Ed25519 key: not a key")
    except (keys.SigningKeyError, ValueError, RecursionError) as error:
        raise TrailError(f"--key {error}") from None
    return data  # a JWK Set is read by each head's key id


def head_file_entries(path: str, trail: Path) -> list[dict[str, Any]]:
    """The heads of ``REP_AUDIT_HEAD_FILE`` at ``path``, each marked ``ours`` when it names
    ``trail`` by its path: :class:`TreeChecks` holds to the trail those and those of its
    log's origin, and finds a copy's heads by their roots. Raises :class:`TrailError`
    when it cannot be read."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError) as error:
        raise TrailError(f"--head {path}: not a head file ({error})") from None
    entries = []
    for number, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
            entry["ours"] = Path(str(entry["trail"])).resolve() == trail.resolve()
        except (ValueError, TypeError, KeyError, RecursionError):
            raise TrailError(f"--head {path}: line {number} is not a head") from None
        entries.append(entry)
    return entries


def _tree_of(head: dict[str, Any]) -> tuple[Any, Any]:
    """The size and root of a head."""
    return head.get("size"), head.get("root")


def _origin(head: dict[str, Any]) -> str:
    """The origin of a head's checkpoint (``""``: none)."""
    note = text(head.get("checkpoint"))
    return note.partition("\n")[0] if "\n\n" in note else ""


def signature_problem(head: dict[str, Any], key: bytes | None, source: str) -> tuple[str, str]:
    """What is wrong with a tree head's signature checked with the public key ``key`` (the
    bytes of the file ``source``: PEM, a JWK, or a JWK Set holding the head's key id), or
    ``""``; and how it stands, in words (unsigned, not checked without a key, checked).
    A head's checkpoint is held to its size and root with a key or without."""
    kid, signature, note = head.get("key"), head.get("signature"), head.get("checkpoint")
    if kid is None and signature is None and note is None:
        return "", "unsigned"
    failed = "its signature does not verify"
    if not isinstance(kid, str) or not isinstance(signature if note is None else note, str):
        return "the tree head's key or signature is not text", failed
    if note is not None and (problem := checkpoint_problem(head, None)[0]):
        return problem, failed
    if key is None:
        return "", f"signed by key {kid}, not checked: give --key (the operator's key)"
    try:
        public = keys.public_key(key, source, kid)
    except keys.SigningKeyError as error:
        return f"the tree head is signed by key {kid}, not by --key ({error})", failed
    if keys.thumbprint(public) != kid:
        return (f"the tree head is signed by key {kid}, not by the key of --key "
                f"({keys.thumbprint(public)})"), failed  # fmt: skip
    if note is not None:
        problem, origin = checkpoint_problem(head, public)
        return problem, (failed if problem else f"checkpoint of {origin} signed by key {kid}"
                         ", checked with --key")  # fmt: skip
    try:
        raw = base64.b64decode(text(signature), validate=True)
    except binascii.Error:
        raw = b""
    message = signed_message(whole(head.get("size")) or 0, text(head.get("root")),
                             text(head.get("time")))  # fmt: skip
    if not keys.verify(public, raw, message):
        return (f"the tree head's signature is not key {kid}'s over its size, root and "
                "time: the head was changed or forged"), failed  # fmt: skip
    return "", f"signed by key {kid}, checked with --key"


def checkpoint_problem(head: dict[str, Any], public: Ed25519PublicKey | None) -> tuple[str, str]:
    """What is wrong with a head's ``checkpoint`` (a C2SP checkpoint of its size and root,
    with no extension line, signed under its origin: by ``public`` when given, every
    signature of that key verifying: :mod:`rep_engine.trail.notes`), or ``""``; and its
    origin."""
    try:
        body, signatures = notes.read_note(text(head.get("checkpoint")))
        origin, size, root, extensions = notes.read_checkpoint(body)
    except notes.NoteError as error:
        return f"the tree head's checkpoint is not one: {error}", ""
    if (size, root.hex(), extensions) != (head.get("size"), head.get("root"), ""):
        return (f"the tree head's checkpoint is of {size} line(s) and root {root.hex()[:16]}…"
                f"{', with extension lines' if extensions else ''}, not the head's size and "
                "root: it is another head's"), origin  # fmt: skip
    if public is None:
        if not any(s.name == origin for s in signatures):
            return (f"the tree head's checkpoint has no signature named after its log, "
                    f"{origin}"), origin  # fmt: skip
        return "", origin
    wanted = notes.key_id(origin, notes.ED25519, keys.raw_public(public))
    found = [s for s in signatures if (s.name, s.key_id) == (origin, wanted)]
    if not found or not all(keys.verify(public, s.signature, body.encode()) for s in found):
        return (f"the tree head's checkpoint is not signed by key {keys.thumbprint(public)} "
                f"as the log {origin}: the head was changed or forged"), origin  # fmt: skip
    return "", origin


class TreeChecks:
    """``audit verify``'s checks of the heads and the sites' chains, fed every line in
    order; each problem goes to ``add(line, url, sentence)``."""

    def __init__(
        self, add: Callable[[int, str, str], object], key: bytes | None = None,
        key_source: str = "", anchors: list[dict[str, Any]] | None = None,
    ) -> None:  # fmt: skip
        self.add = add
        self.tree = Frontier()
        #: ``--key``'s bytes and name.
        self.key, self.key_source = key, key_source
        #: The heads of a head file (``--head FILE``) by the lines they cover; those met,
        #: and whether the root of the lines they cover was theirs; the trail's origins.
        self.anchors: dict[int, list[dict[str, Any]]] = {}
        for entry in anchors or ():
            self.anchors.setdefault(whole(entry.get("size")) or 0, []).append(entry)
        self.anchored: list[tuple[dict[str, Any], bool]] = []
        self.origins: set[str] = set()
        self.head_file = anchors is not None
        #: Each run's records of each site (how many, the line of the last) until a
        #: ``site`` line counts them; the runs that write sites' chains (schema 3 on).
        self.sites: dict[str, dict[str, tuple[int, int]]] = {}
        self.chained: set[str] = set()
        #: Those runs ended and waiting for their head: the line of their end line.
        self.ended: dict[str, int] = {}
        self.heads = 0
        #: The last head's line and record, and what its signature came to.
        self.last: tuple[int, dict[str, Any]] | None = None
        self.signed = ""

    def feed(self, line: Line) -> None:
        number, record, kind = line.number, line.record, line.type
        self._anchor()
        if record is not None:
            run = text(record.get("run"))
            if kind == "run" and (whole(record.get("schema")) or 0) >= 3:
                self.chained.add(run)
            elif kind in SITE_RECORDS:
                self._record(number, record, self.sites.setdefault(run, {}), run)
            elif kind == "end" and run in self.chained:
                self.ended[run] = number
            elif kind == "site":
                self._site(number, record, run)
            elif kind == "head":
                self._head(number, record, run)
        self.tree.add(leaf_hash(line.raw))

    def _record(
        self, number: int, record: dict[str, Any], sites: dict[str, tuple[int, int]], run: str
    ) -> None:
        site = site_of(record.get("url"))
        count, last = sites.get(site, (0, 0))
        said = record.get("site_prev")
        if run in self.chained and (said != last or type(said) is not int):
            before = f"line {last}" if last else "none: it is the site's first"
            self.add(number, str(record.get("url", "")),
                     f"its site_prev says {said!r}, but the record of {site or 'its site'} "
                     f"before it in run {run[:8]} is {before} (a record of the site "
                     "deleted, added or moved)")  # fmt: skip
        sites[site] = (count + 1, number)

    def _site(self, number: int, record: dict[str, Any], run: str) -> None:
        """A ``site`` line: of the run that ended last, or of an earlier run that none
        counted (a run of an earlier release, or killed), written before its own."""
        site = text(record.get("site"))
        if not self.ended:
            self.add(number, site, f"a site line of run {run[:8]} that does not follow a "
                     "run's end line")  # fmt: skip
            return
        count, last = self.sites.get(run, {}).pop(site, (0, 0))
        said = (record.get("records"), record.get("last"))
        if said != (count, last):
            self.add(number, site, f"the site line counts {said[0]!r} record(s) of the site, "
                     f"the last at line {said[1]!r}; run {run[:8]} has {count}, the last at "
                     f"line {last} (a record deleted, added or moved)")  # fmt: skip

    def _head(self, number: int, record: dict[str, Any], run: str) -> None:
        self.heads += 1
        self.origins.add(_origin(record))
        self.last = (number, record)
        size, root, tree = record.get("size"), record.get("root"), self.tree
        if size != tree.size:
            self.add(number, "", f"the tree head says {size!r} line(s) before it, there are "
                     f"{tree.size}: lines were deleted or added")  # fmt: skip
        elif root != tree.root().hex():
            self.add(number, "", f"the tree head's root {str(root)[:16]}… is not that of the "
                     f"{size} line(s) before it ({tree.root().hex()[:16]}…): a line was "
                     "changed")  # fmt: skip
        elif record.get("frontier") != [node.hex() for node in tree.roots()]:
            self.add(number, "", "the tree head's frontier is not the tree's: the next "
                     "run's head would go on from another tree")  # fmt: skip
        self._signature(number, record)
        if run not in self.chained:
            return
        if self.ended.pop(run, None) is None:
            self.add(number, "", f"a tree head of run {run[:8]} before its end line")
        for of, sites in self.sites.items():  # every record before a head is counted
            for site, (count, last) in sites.items():
                self.add(last, site, f"run {of[:8]} has no site line for {site or 'its site'}"
                         f": its {count} record(s) (the last at line {last}) are not "
                         "accounted for")  # fmt: skip
        self.sites = {}

    def _signature(self, number: int, head: dict[str, Any]) -> None:
        """The head's signature checked with ``--key`` (:attr:`signed` says how it went)."""
        problem, self.signed = signature_problem(head, self.key, self.key_source)
        if problem:
            self.add(number, "", problem)

    def _anchor(self) -> None:
        """The heads of the head file that cover the lines read so far, and whether the
        root of those lines is theirs."""
        root = self.tree.root().hex()
        for entry in self.anchors.pop(self.tree.size, ()):
            self.anchored.append((entry, entry.get("root") == root))

    def _anchors_held(self) -> None:
        """The heads of the head file of this trail (by its path or its log's origin) held
        to its lines; a head file with none of them, nor one its lines hash to, is no
        anchor of these lines."""
        tree = self.tree
        mine = [entry for entry, _ in self.anchored] + [e for es in self.anchors.values()
                                                        for e in es]  # fmt: skip
        mine = [e for e in mine if e.get("ours") or _origin(e) in self.origins - {""}]
        for entry, same in self.anchored:
            if not same and entry in mine:
                size = entry.get("size")
                self.add(0, "", f"the head file's head of {entry.get('time')} says the first "
                         f"{size} line(s) hash to {str(entry.get('root'))[:16]}…, they hash "
                         f"otherwise: a line up to line {size} was changed")  # fmt: skip
        for size, entries in sorted(self.anchors.items()):
            for entry in (e for e in entries if e in mine):
                self.add(0, "", f"the head file's head of {entry.get('time')} covers {size} "
                         f"line(s), the trail has {tree.size}: lines were cut")  # fmt: skip
        if self.head_file and not mine and not any(same for _, same in self.anchored):
            self.add(0, "", "the head file holds no head of this trail (none names it by its "
                     "path or its log's origin, none is the root of its first lines): its "
                     "heads are another trail's, or this one was rewritten")  # fmt: skip

    def finish(self) -> str:
        """The last checks (the heads of the head file, the runs ended without a head);
        what the trail's heads come to, in a sentence."""
        self._anchor()
        self._anchors_held()
        for run, end in self.ended.items():
            self.add(end, "", f"run {run[:8]} has no tree head after its end line: it was "
                     "removed, or the crawl was killed as it wrote it")  # fmt: skip
        if self.key is not None and self.signed in ("", "unsigned"):
            self.add(0, "", f"--key was given, but the trail's last tree head is "
                     f"{self.signed or 'missing'}")  # fmt: skip
        if self.last is None:
            return NO_HEAD
        number, head = self.last
        return (f"tree head at line {number}, over {head.get('size')} line(s), root "
                f"{head.get('root')}; {self.signed} ({self.heads} head(s) in all)")  # fmt: skip
