"""The audit tools never crash on what a trail holds (SPEC §7: no input makes a
component raise): any JSON value in any field of any line gives ``verify`` findings, and
``summary``, ``show`` and ``report`` text, never an exception (Hypothesis)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rep_audit.cli import main
from rep_audit.verify import verify
from tests.support.trailfactory import encode, standard_records, write_trail

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
