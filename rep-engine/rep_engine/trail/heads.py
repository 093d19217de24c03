"""A trail's tree heads and its sites' chains (docs/audit-trail.md, "Tree heads"), as the
trail's file writes them (pure).

The trail is a log in Certificate Transparency's sense (RFC 9162 §2.1): every line of the
file, in order, is a leaf of a Merkle tree (:mod:`rep_engine.trail.merkle`). Each run
ends with

- a ``site`` line per origin whose records it wrote (``url``, ``file``, ``item``): how
  many, and the line of the last; each record names the line of its site's record before
  it in its run (``site_prev``, ``0``: its first). A site's records of a run are thus a
  chain that a bundle of that site (``audit bundle``) cannot leave a record out of
  unseen: one left out in the middle is named by the record after it, one at the end by
  the ``site`` line. The records of the trail that no ``site`` line counts yet (a run of
  an earlier release, which wrote none, or one killed before its end line) get theirs
  from the next run to end, before its own (:func:`count_records`): every record a head
  covers is counted by a ``site`` line before it;
- its ``head`` line: the number of lines before it (``size``), the Merkle root over them
  (``root``), the time, the roots of the tree's perfect subtrees (``frontier``: the
  next run goes on from them without reading the trail), and, when the operator gives
  ``REP_AUDIT_SIGNING_KEY``, the key's RFC 7638 thumbprint (``key``) and the head as a
  C2SP checkpoint signed with it (``checkpoint``: :mod:`rep_engine.trail.notes`), whose
  origin names the trail (:func:`origin_of_trail`). Heads written before checkpoints
  carry the Ed25519 signature (RFC 8032) of :func:`signed_message` instead
  (``signature``), still read.

The key is read by the writers (:mod:`rep_engine.keys`, above this floor): the file is
given its signing function (:class:`HeadOptions`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from rep_engine.records import iso_time
from rep_engine.trail import notes
from rep_engine.trail.merkle import Frontier
from rep_engine.urls.origins import OriginMemo

#: What a head's signature was over, before its size, root and time, before checkpoints.
SIGNED_PREFIX: Final = b"scrapy_rep tree head v1\n"
#: The records of a site, chained by ``site_prev`` and counted by its ``site`` line.
SITE_RECORDS: Final = frozenset({"url", "file", "item"})
_ORIGINS: Final = OriginMemo()


def signed_message(size: int, root: str, time: str) -> bytes:
    """The bytes a head's signature was over before checkpoints: the prefix, then its
    ``size``, ``root`` (hex) and ``time``, each on a line of its own."""
    return SIGNED_PREFIX + f"{size}\n{root}\n{time}\n".encode()


def site_of(url: Any) -> str:
    """The site (origin, ``https://example.com``) a record of ``url`` belongs to; ``""``
    for a URL of no origin (a ``data:`` URL, none)."""
    origin = _ORIGINS.get(url) if isinstance(url, str) else None
    return str(origin) if origin is not None else ""


@dataclass(frozen=True)
class HeadOptions:
    """How the heads are written: signed by ``sign`` (``None``: unsigned) with the key
    named ``key`` (its thumbprint) whose raw public key is ``public``, as checkpoints of
    the log ``origin`` (``""``: :func:`origin_of_trail`'s), and appended to ``file``
    too (``None``: not)."""

    sign: Callable[[bytes], bytes] | None = None
    key: str | None = None
    file: Path | None = None
    public: bytes = b""
    origin: str = ""


def origin_of_trail(key: str, first_line: str) -> str:
    """The origin of a trail's checkpoints when ``REP_AUDIT_LOG_ORIGIN`` names none: the
    signing key's thumbprint and the start of the SHA-256 of the trail's first line
    (``first_line``, hex: the ``prev`` of its second), so that two trails of one key are
    two logs to a witness, and a copy of a trail is the same log."""
    return f"rep-audit/{key}/{first_line[:16]}"


#: The records of each run and site that no ``site`` line has counted yet: how many, and
#: the line of the last.
Uncounted = dict[tuple[str, str], tuple[int, int]]


def count_records(uncounted: Uncounted, line: bytes, number: int) -> None:
    """The trail's line ``number`` (``line``, as read) counted in ``uncounted``: a record
    added to its run and site, a ``site`` line taking its run and site out. A line that is
    no JSON object is passed over (``audit verify`` names it)."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return
    if not isinstance(record, dict):
        return
    kind, run = record.get("type"), str(record.get("run", ""))
    if kind in SITE_RECORDS:
        key = (run, site_of(record.get("url")))
        uncounted[key] = (uncounted.get(key, (0, 0))[0] + 1, number)
    elif kind == "site":
        uncounted.pop((run, str(record.get("site", ""))), None)


def head_line(
    run: Any, tree: Frontier, options: HeadOptions, last_request: Any, first_line: str
) -> dict[str, Any]:
    """The ``head`` line over the lines of ``tree``; ``last_request``: the end line's, said
    again so that a crawl appending to the trail reads it from its last line;
    ``first_line``: the SHA-256 of the trail's first line (its origin's, by default)."""
    time, root = iso_time(), tree.root()
    checkpoint = None
    if options.sign is not None:
        origin = options.origin or origin_of_trail(str(options.key), first_line)
        text = notes.checkpoint_text(origin, tree.size, root)
        signature = options.sign(text.encode())
        key = notes.key_id(origin, notes.ED25519, options.public)
        checkpoint = f"{text}\n{notes.signature_line(origin, key, signature)}"
    return {"type": "head", "run": run, "time": time, "size": tree.size, "root": root.hex(),
            "frontier": [node.hex() for node in tree.roots()], "key": options.key,
            "checkpoint": checkpoint, "last_request": last_request}  # fmt: skip


def append_head(file: Path, trail: Path, head: dict[str, Any]) -> None:
    """``head`` appended to the head file as one JSON line naming the trail (its absolute
    path), without its ``frontier`` and ``prev``. Raises ``OSError`` naming the setting."""
    kept = {k: v for k, v in head.items() if k not in ("frontier", "prev", "last_request")}
    line = json.dumps({"trail": str(trail.absolute()), **kept}) + "\n"
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        with file.open("a", encoding="utf-8") as out:
            out.write(line)
    except OSError as error:
        raise OSError(f"REP_AUDIT_HEAD_FILE {file}: {error.strerror or error}") from None


def resumed(last: dict[str, Any] | None) -> Frontier | None:
    """The tree of the lines before ``last``, a trail's last line, from its ``frontier``
    when it is a head whose frontier gives its root (``None``: it is not; the trail is
    read again)."""
    if last is None or last.get("type") != "head":
        return None
    size, roots = last.get("size"), last.get("frontier")
    if type(size) is not int or size < 0 or not isinstance(roots, list):
        return None
    try:
        tree = Frontier.resumed(size, [bytes.fromhex(root) for root in roots])
    except (TypeError, ValueError):
        return None
    return tree if tree is not None and tree.root().hex() == last.get("root") else None
