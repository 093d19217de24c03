"""The audit tools never crash on what a trail holds (SPEC §7: no input makes a
component raise): any JSON value in any field of any line gives ``verify`` findings, and
``summary``, ``show`` and ``report`` text, never an exception (Hypothesis)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rep_audit.cli import main
from rep_audit.verify import verify
from tests.support.trailfactory import encode, robots_part, standard_records, write_trail

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
FIELDS = ("type", "run", "url", "fate", "robots", "usage", "agents", "purposes", "profile",
          "settings", "counts", "sha256", "outcome", "status", "id", "refused_by", "kind",
          "items_kept", "line", "snapshot", "signals", "to", "resumes", "agent",
          "schema")  # fmt: skip


def nest(record: dict[str, Any], key: str, value: Any) -> None:
    """Put ``value`` at ``key`` in the record, or in its robots/usage part."""
    for part in ("robots", "usage"):
        if key in ("line", "snapshot", "agent") and isinstance(record.get(part), dict):
            record[part][key] = value
            return
        if key == "signals" and isinstance(record.get("usage"), dict):
            record["usage"]["signals"] = value
            return
    record[key] = value


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(changes=st.lists(st.tuples(st.integers(0, 5), st.sampled_from(FIELDS), JSON), max_size=4))
def test_odd_values_never_crash_the_reader(
    tmp_path: Path, changes: list[tuple[int, str, Any]]
) -> None:
    records = standard_records()
    for index, key, value in changes:
        nest(records[index], key, value)
    path = write_trail(tmp_path / "t.jsonl", lines=encode(records))
    result = verify(path)
    assert result.clean == (not result.findings)
    for argv in (["summary", str(path)], ["show", str(path), "http://site.test/"],
                 ["report", str(path), "--html", str(tmp_path / "r.html")]):  # fmt: skip
        assert main(argv, io.StringIO()) in (0, 1, 2)


@pytest.mark.parametrize(
    ("schema", "change", "found"),
    [
        # a second robots.txt named (also) whose value is no string: named, as written
        (2, {"robots": {**robots_part(None), "also": 5}}, "names a second robots.txt (also)"),
        # a tdmrep.json named whose value is no string: given up on, never read as none (a
        # schema 1 record names none otherwise)
        (1, {"tdmrep": 5}, "recorded fetched, but Dropped: tdmrep.json of http://site.test"),
        # a robots.txt line written as text: said as written
        (1, {"robots": {**robots_part(None), "line": "2"}}, "recorded as decided by line 2, "),
    ],
)
def test_a_field_of_another_type_is_found_as_written(
    tmp_path: Path, schema: int, change: dict[str, Any], found: str
) -> None:
    """``verify`` reads a record into its typed form, where a value not of its type is a
    missing one; what a forged field names is still found (the crawl writes none of these
    values), so a trail never passes for a field forged with another type."""
    records = standard_records()
    records[0].update(schema=schema, purposes=["ai-train"])  # a tdmrep.json is read for it
    records[2].update(change)  # the fetched page "/"
    result = verify(write_trail(tmp_path / "t.jsonl", records))
    assert [f.line for f in result.findings if found in f.what] == [3], result.findings
