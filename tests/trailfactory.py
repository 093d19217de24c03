"""Trails written by the tests themselves, per schema v1 (docs/audit-trail.md): a run line,
snapshot lines, url lines and an end line, chained by SHA-256, with the snapshot bodies in
``<trail>.d/``. Plain or gzip (one member per line, as the writer does)."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

RUN = "0123456789abcdef0123456789abcdef"
ROBOTS = b"""User-agent: *
Disallow: /private
Allow: /private/ok
Content-Usage: /nottrain train-ai=n
"""
TDMREP = b'[{"location": "/books/*", "tdm-reservation": 1}]'
ORIGIN = "http://site.test"


def sha(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def run_line(**extra: Any) -> dict[str, Any]:
    return {
        "type": "run",
        "schema": 1,
        "run": RUN,
        "time": "2026-11-23T14:00:00.000Z",
        "version": "0.1.0",
        "standards": {"robots.txt": "RFC 9309"},
        "spider": "test",
        "agents": ["testbot"],
        "user_agent": "testbot/1.0",
        "purposes": ["search"],
        "profile": "google",
        "settings": {"REP_PROFILE": "google"},
        "resumes": None,
        "jobdir": None,
        **extra,
    }


def snapshot_line(body: bytes = ROBOTS, kind: str = "robots.txt", **extra: Any) -> dict[str, Any]:
    url = f"{ORIGIN}/robots.txt" if kind == "robots.txt" else f"{ORIGIN}/.well-known/tdmrep.json"
    return {
        "type": "snapshot",
        "run": RUN,
        "time": "2026-11-23T14:00:01.000Z",
        "sha256": sha(body),
        "kind": kind,
        "url": url,
        "final_url": url,
        "status": 200,
        "outcome": "parsed",
        "fetched": "2026-11-23T14:00:01.000Z",
        "bytes": len(body),
        **extra,
    }


def robots(
    line: int | None, rule: str = "", body: bytes = ROBOTS, agent: str = "testbot"
) -> dict[str, Any]:
    decided: dict[str, Any] = {"origin": ORIGIN, "snapshot": sha(body), "agent": agent}
    if line is None:
        decided["why"] = "no rule matches"
    else:
        decided.update(line=line, rule=rule)
    return decided


def url_line(path: str, fate: str = "fetched", **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "url",
        "run": RUN,
        "time": "2026-11-23T14:00:02.000Z",
        "id": sha(path.encode())[:40],
        "url": ORIGIN + path,
        "fate": fate,
        "attempts": 1,
        "status": 200,
    }
    if fate == "fetched":
        record.update(items_kept=1, items_dropped=0)
    record.update(extra)
    return record


def end_line(records: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    fates = Counter(r["fate"] for r in records if r["type"] == "url")
    counts = {"url": sum(fates.values()), "duplicates_dropped": 0}
    for fate in ("fetched", "refused", "failed", "redirected", "unfinished"):
        counts[fate] = fates[fate]
    return {
        "type": "end",
        "run": RUN,
        "time": "2026-11-23T14:00:09.000Z",
        "reason": "finished",
        "counts": counts,
        **extra,
    }


def standard_records() -> list[dict[str, Any]]:
    """One run: a fetched page, one refused by robots.txt, one allowed by a line."""
    body = [
        snapshot_line(),
        url_line("/", robots=robots(None)),
        url_line(
            "/private/x",
            fate="refused",
            status=None,
            refused_by="robots.txt",
            why="Forbidden by robots.txt",
            robots=robots(2, "Disallow: /private"),
        ),
        url_line("/private/ok/1", robots=robots(3, "Allow: /private/ok")),
    ]
    return [run_line(), *body, end_line(body)]


def encode(records: list[dict[str, Any]], prev: str = "") -> list[bytes]:
    """The lines, chained (``prev`` of the first: ``prev``)."""
    lines = []
    for record in records:
        record = {**record, "prev": prev}
        line = json.dumps(record, separators=(",", ":")).encode() + b"\n"
        prev = hashlib.sha256(line).hexdigest()
        lines.append(line)
    return lines


def write_trail(
    path: Path,
    records: list[dict[str, Any]] | None = None,
    bodies: tuple[bytes, ...] = (ROBOTS, TDMREP),
    lines: list[bytes] | None = None,
) -> Path:
    """Write the trail (gzip when ``path`` ends in ``.gz``) and its snapshots."""
    if lines is None:
        lines = encode(standard_records() if records is None else records)
    if path.name.endswith(".gz"):
        path.write_bytes(b"".join(gzip.compress(line) for line in lines))
    else:
        path.write_bytes(b"".join(lines))
    snapshots = path.with_name(path.name + ".d")
    snapshots.mkdir(exist_ok=True)
    for body in bodies:
        (snapshots / sha(body)).write_bytes(body)
    return path
