"""``audit bundle``: one site's records, with the proof that each is a line of the trail
its operator signed, for the site's owner to check alone (``audit check-bundle``,
:mod:`rep_audit.bundlecheck`; docs/audit-trail.md, "A site's bundle") (pure).

The bundle holds, for the origin given (``--site``), every line of the trail up to its
tree head (the last one, or the one at ``--at LINE``) that is the site's: its ``url``,
``file`` and ``item`` records, the ``site`` line of each run that wrote them, those runs'
``run`` lines (the crawl's settings: agents, purposes, profile) and their ``setting``
lines of the site (its host's
override; a held license its records name), the ``snapshot`` lines its records name and
those bodies. The record's evidence stays whole: a snapshot a record of the site names is
in, of whichever URL (an RSL license hosted elsewhere; robots.txt of the host a request
was addressed to). Each line with its inclusion proof against the head (RFC 9162
§2.1.3), the head with its signature, and a consistency proof (§2.1.4) from each earlier
head of the trail to it: a bundle of yesterday's head and one of today's show the trail
only grew. Nothing of another site: the lines of other origins are in the proofs as
hashes only.

Built in two passes over the trail, never holding its lines: the first keeps the hash of
each line (32 bytes a line) and what the site's records name, the second writes the lines
picked as it meets them; the proofs come from the tree over those hashes (about 64 bytes
a line).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

from rep_audit.show import NEAR_AT_MOST
from rep_engine.records import items, mapping, text
from rep_engine.settings.readers import closest
from rep_engine.trail import notes
from rep_engine.trail.file import SITE_RECORDS, site_of
from rep_engine.trail.merkle import MerkleTree, leaf_hash
from rep_engine.trail.read import Line, Trail, TrailError
from rep_engine.urls.origins import origin_of
from rep_engine.usage.rsl.terms import license_url_of

#: The first member of a bundle, and its version.
BUNDLE: Final = "scrapy_rep site bundle"
VERSION: Final = 1
#: The head's fields a bundle carries (its signed checkpoint; a head written before
#: checkpoints, its signature instead).
HEAD_FIELDS: Final = ("run", "time", "size", "root", "key", "signature", "checkpoint")
_SHA256: Final = re.compile(r"[0-9a-f]{64}")


def named_snapshots(record: Any) -> Iterator[str]:
    """Every snapshot a record names (its ``robots``, ``tdmrep``, ``rsl``, ``usage`` and
    ``page`` parts): each SHA-256 in it but its ``prev``."""
    if isinstance(record, dict):
        for name, value in record.items():
            if name != "prev":
                yield from named_snapshots(value)
    elif isinstance(record, list):
        for value in record:
            yield from named_snapshots(value)
    elif isinstance(record, str) and _SHA256.fullmatch(record):
        yield record


@dataclass
class _Picked:
    """What the first pass found: the hash of every line, the heads, the site's lines and
    what they name."""

    leaves: bytearray = field(default_factory=bytearray)
    heads: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    #: The lines of the site's records and ``site`` lines, and the runs they are of.
    lines: set[int] = field(default_factory=set)
    runs: set[str] = field(default_factory=set)
    #: (run, SHA-256) of each snapshot a record names; the sites whose documents decided
    #: them (theirs, and the one a request was addressed to) and the licenses they name.
    snapshots: set[tuple[str, str]] = field(default_factory=set)
    sites: set[str] = field(default_factory=set)
    licenses: set[str] = field(default_factory=set)


def _first_pass(trail: Trail, site: str | None) -> _Picked:
    """The hash of each line of ``trail``, its heads and what of ``site`` (an origin;
    ``None``: nothing) a bundle holds."""
    picked = _Picked()
    for line in trail.lines():
        if line.problem:
            raise TrailError(f"{trail.path}: line {line.number}: {line.problem}; "
                             "`audit verify` says more")  # fmt: skip
        picked.leaves += leaf_hash(line.raw)
        record, kind = line.record or {}, line.type
        run = text(record.get("run"))
        if kind == "head":
            picked.heads.append((line.number, record))
        elif site is None:
            continue
        elif (
            kind in SITE_RECORDS
            and site in (site_of(record.get("url")), mapping(record.get("robots")).get("addressed"))
        ) or (kind == "site" and record.get("site") == site):
            picked.lines.add(line.number)
            picked.runs.add(run)
            picked.snapshots.update((run, sha) for sha in named_snapshots(record))
            picked.sites.add(text(mapping(record.get("robots")).get("addressed")))
            picked.sites.add(site_of(record.get("url")))  # sent to the site by its Host
            picked.licenses.update(map(str, mapping(record.get("rsl"))))
            signals = items(mapping(record.get("usage")).get("signals"))
            picked.licenses.update(license_url_of(text(mapping(s).get("source"))) for s in signals)
    if site is not None:
        picked.sites.add(site)
    return picked


def _wanted(line: Line, picked: _Picked, host: str) -> bool:
    """Whether the second pass writes ``line`` (the lines of the first, and what they
    need)."""
    record, kind = line.record or {}, line.type
    run = text(record.get("run"))
    if line.number in picked.lines:
        return True
    if run not in picked.runs:
        return False
    if kind == "run":
        return True
    if kind == "snapshot":  # a document of the site's, or one its records name
        url = text(record.get("url"))
        return (run, text(record.get("sha256"))) in picked.snapshots and (
            site_of(url) in picked.sites or url in picked.licenses
        )
    if kind != "setting":
        return False
    entry = record.get("entry")
    if record.get("name") == "REP_OVERRIDES":
        return isinstance(entry, list) and bool(entry) and entry[0] == host
    return entry in picked.licenses


def _no_record(trail: Trail, origin: str, given: str, later: int, head: int) -> str:
    """Why ``trail`` makes no bundle of ``origin`` (``--site given``): its records all come
    after the tree head at line ``head`` (``later`` lines of the site), which does not
    cover them; or it has none: the trail's sites closest to it are named (another scheme,
    ``www.``, ``localhost`` for ``127.0.0.1``), as ``audit show`` names the recorded URLs
    close to one without a record (:data:`~rep_audit.show.NEAR_AT_MOST` at most)."""
    if later:
        return (f"--site {given}: the {later} line(s) of {origin} in {trail.path} come after "
                f"its tree head at line {head}, which does not cover them (a run writes its "
                "head as it ends): no bundle of them yet")  # fmt: skip
    sites = {site_of((line.record or {}).get("url")) for line in trail.lines()
             if line.type in SITE_RECORDS} - {""}  # fmt: skip
    near = closest(origin, sites, NEAR_AT_MOST, cutoff=0)
    named = f"; did you mean {' or '.join(near)}? (of its {len(sites)} site(s))" if near else ""
    return f"--site {given}: no record of {origin} in {trail.path}{named}"


def proved_head(
    trail: Trail, picked: _Picked, at: int | None
) -> tuple[int, dict[str, Any], MerkleTree]:
    """The last tree head of ``trail`` (``at``: the one at that line; ``picked.heads`` cut
    after it), its line, and the Merkle tree of the lines it covers, checked to be the
    head's. Raises :class:`TrailError` when there is none, or the lines were changed."""
    if not picked.heads:
        raise TrailError(f"{trail.path}: no tree head: the trail was written before tree "
                         "heads; a bundle needs one")  # fmt: skip
    if at is not None:
        lines = [number for number, _ in picked.heads]
        if at not in lines:
            raise TrailError(f"--at {at}: no tree head of {trail.path} at that line (its "
                             f"heads are at lines {', '.join(map(str, lines))})")  # fmt: skip
        picked.heads = picked.heads[: lines.index(at) + 1]
    number, head = picked.heads[-1]
    tree = MerkleTree(bytes(picked.leaves[: (number - 1) * 32]))
    del picked.leaves[:]
    if tree.root().hex() != head.get("root"):
        raise TrailError(f"{trail.path}: its first {number - 1} line(s) are not those its "
                         f"tree head (line {number}) was made over: `audit verify` says "
                         "where")  # fmt: skip
    return number, head, tree


def _cosigned(path: str, heads: list[tuple[int, dict[str, Any]]]) -> str:
    """The checkpoint with its witnesses' cosignatures in the file at ``path`` (``audit
    cosign``), which must be that of one of ``heads``."""
    try:
        note = Path(path).read_text(encoding="utf-8")
        checkpoint, _ = notes.read_note(note)
    except (OSError, ValueError) as error:
        raise TrailError(f"--cosigned {path}: not a cosigned checkpoint ({error})") from None
    if not any(text(head.get("checkpoint")).startswith(f"{checkpoint}\n") for _, head in heads):
        raise TrailError(f"--cosigned {path}: not the checkpoint of this tree head or of an "
                         "earlier one of the trail")  # fmt: skip
    return note


def build(
    path: str | Path, site: str, out: IO[str], at: int | None = None, cosigned: Sequence[str] = ()
) -> tuple[int, int, int]:
    """Write the bundle of ``site`` (an origin, or any URL of it) of the trail at ``path``
    to ``out``, proved against its last tree head (``at``: the head at that line), with
    the cosigned checkpoints of the files ``cosigned``; the lines and records it holds,
    and the lines of the site after that head (left out: it does not cover them). Raises
    :class:`TrailError` when the trail cannot be read, has no tree head (at ``at``), or
    its chain is broken (``audit verify`` says where)."""
    origin = origin_of(site)
    if origin is None:
        raise TrailError(f"--site {site!r}: not a URL of a site (https://example.com)")
    trail = Trail(path)
    picked = _first_pass(trail, str(origin))
    number, head, tree = proved_head(trail, picked, at)
    size = number - 1
    if not any(line <= size for line in picked.lines):
        raise TrailError(_no_record(trail, str(origin), site, len(picked.lines), number))
    witnessed = [_cosigned(file, picked.heads) for file in cosigned]
    earlier = [
        {**{name: record.get(name) for name in ("time", "size", "root")},
         "proof": [node.hex() for node in tree.consistency_proof(record["size"])]}
        for _, record in picked.heads[:-1]
    ]  # fmt: skip
    out.write(json.dumps({"bundle": BUNDLE, "version": VERSION, "site": str(origin),
                          "trail": trail.path.name,
                          "head": {name: head.get(name) for name in HEAD_FIELDS},
                          "consistency": earlier, "cosigned": witnessed})[:-1])  # fmt: skip
    written, records = _write_lines(trail, picked, tree, size, origin.host, out)
    return written, records, len([n for n in picked.lines if n > size])


def _write_lines(
    trail: Trail, picked: _Picked, tree: MerkleTree, size: int, host: str, out: IO[str]
) -> tuple[int, int]:
    """The second pass: the lines picked among the first ``size`` (each with its inclusion
    proof in ``tree``) and the bodies of the snapshots among them, written to ``out``; the
    lines and records written."""
    out.write(', "lines": [')
    written = records = 0
    shas: list[str] = []
    for line in trail.lines():
        if line.number > size:
            break
        if not _wanted(line, picked, host):
            continue
        proof = [node.hex() for node in tree.inclusion_proof(line.number - 1)]
        entry = {"line": line.number, "text": line.raw.decode().removesuffix("\n"), "proof": proof}
        out.write(("," if written else "") + "\n" + json.dumps(entry))
        written += 1
        records += line.type in SITE_RECORDS
        if line.type == "snapshot":
            shas.append(text((line.record or {}).get("sha256")))
    out.write('\n], "snapshots": {')
    separator = ""
    for sha in dict.fromkeys(shas):
        body = trail.snapshots.body(sha)
        if body is not None:  # missing or altered: the check of the bundle says so
            coded = base64.b64encode(body).decode()
            out.write(f"{separator}\n{json.dumps(sha)}: {json.dumps(coded)}")
            separator = ","
    out.write("\n}}\n")
    return written, records
