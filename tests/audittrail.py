"""Reading an audit trail in tests: its lines, its ``url`` records, its chain."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any


def raw_lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)
    return data.splitlines(keepends=True)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw_lines(path)]


def url_records(path: Path) -> list[dict[str, Any]]:
    return [line for line in lines(path) if line["type"] == "url"]


def by_url(path: Path) -> dict[str, dict[str, Any]]:
    records = url_records(path)
    found = {record["url"]: record for record in records}
    assert len(found) == len(records), "more than one record for a URL"
    return found


def chain_breaks(path: Path) -> list[int]:
    """Line numbers (0-based) whose ``prev`` is not the hash of the line before."""
    prev = ""
    broken = []
    for number, line in enumerate(raw_lines(path)):
        if json.loads(line)["prev"] != prev:
            broken.append(number)
        prev = hashlib.sha256(line).hexdigest()
    return broken
