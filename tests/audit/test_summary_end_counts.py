"""``audit summary`` on an end line whose ``counts`` is not an object (a damaged or
hand-edited trail): the links not followed count as none, never a crash (the reader
gives bad input a clear outcome)."""

from __future__ import annotations

import pytest

from rep_audit.summary import Summary, summary_text


@pytest.mark.parametrize("counts", [True, 3, "x", ["not_followed"], None])
def test_an_end_line_whose_counts_is_no_object_counts_no_links(counts: object) -> None:
    summary = Summary(ends=[{"type": "end", "counts": counts}])
    assert "link(s) not followed" not in "\n".join(summary_text(summary))


def test_the_links_not_followed_of_every_end_line_are_summed() -> None:
    ends = [{"counts": {"not_followed": 2}}, {"counts": True}, {"counts": {"not_followed": 3}}]
    text = "\n".join(summary_text(Summary(ends=ends)))
    assert "5 link(s) not followed" in text
