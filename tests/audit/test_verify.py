"""``audit verify`` on trails the tests write per schema v1 (docs/audit-trail.md,
'`verify`'): the hash chain, truncation, deletion, edits, gzip, missing or altered
snapshots, and decisions that today's engine re-derives differently."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from rep_audit.verify import verify
from rep_engine.trail.read import Trail, TrailError
from rep_engine.verdict.decide import Override
from tests.support.tools import audit_tool
from tests.support.trailfactory import (
    ROBOTS,
    RUN,
    TDMREP,
    encode,
    end_line,
    robots_part,
    run_line,
    sha,
    snapshot_line,
    standard_records,
    url_line,
    write_trail,
)

Lines = list[bytes]


def flip_inside_url(lines: Lines) -> Lines:
    """One byte of a URL changed: the line is still JSON, the next link breaks."""
    lines[3] = lines[3].replace(b"/private/x", b"/private/y")
    return lines


def flip_to_garbage(lines: Lines) -> Lines:
    lines[2] = lines[2].replace(b"{", b"[", 1)
    return lines


def delete_line(lines: Lines) -> Lines:
    del lines[3]
    return lines


def cut_mid_line(lines: Lines) -> Lines:
    lines[-1] = lines[-1][:20]
    return lines


def drop_end_line(lines: Lines) -> Lines:
    return lines[:-1]


def swap_lines(lines: Lines) -> Lines:
    lines[2], lines[3] = lines[3], lines[2]
    return lines


def insert_line(lines: Lines) -> Lines:
    extra = json.dumps({**url_line("/added"), "prev": ""}).encode() + b"\n"
    return [*lines[:3], extra, *lines[3:]]


def unchanged(lines: Lines) -> Lines:
    return lines


#: (id, how the lines are changed, the finding expected, or "" for clean).
TAMPERING: list[tuple[str, Callable[[Lines], Lines], str]] = [
    ("valid-chain", unchanged, ""),
    ("flipped-byte-in-a-url", flip_inside_url, "line 5: chain broken"),
    ("flipped-byte-breaks-json", flip_to_garbage, "line 3: not a JSON object"),
    ("deleted-line", delete_line, "line 4: chain broken"),
    ("deleted-line-counts", delete_line, "the end line counts 3 url record(s), the trail holds 2"),
    ("truncated-mid-line", cut_mid_line, "the file is cut"),
    ("truncated-at-a-line-end", drop_end_line, "has no end line"),
    ("swapped-lines", swap_lines, "line 3: chain broken"),
    ("inserted-line", insert_line, "line 4: chain broken"),
]


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
@pytest.mark.parametrize(("change", "expected"), [(c, e) for _, c, e in TAMPERING],
                         ids=[i for i, _, _ in TAMPERING])  # fmt: skip
def test_verify_finds_every_tampering(
    tmp_path: Path, suffix: str, change: Callable[[Lines], Lines], expected: str
) -> None:
    path = write_trail(tmp_path / f"trail{suffix}", lines=change(encode(standard_records())))
    result = verify(path)
    found = [str(finding) for finding in result.findings]
    if not expected:
        assert found == [] and result.clean and result.records == 3
    else:
        assert any(expected in finding for finding in found), found


def test_verify_head_is_the_hash_of_the_last_line(tmp_path: Path) -> None:
    lines = encode(standard_records())
    result = verify(write_trail(tmp_path / "t.jsonl", lines=lines))
    assert result.head == sha(lines[-1]) and result.lines == len(lines)


def test_a_gzip_trail_cut_inside_its_last_member_is_reported(tmp_path: Path) -> None:
    path = write_trail(tmp_path / "t.jsonl.gz")
    path.write_bytes(path.read_bytes()[:-5])  # the last member loses its CRC and size
    found = [str(f) for f in verify(path).findings]
    assert any("gzip stream is cut" in f for f in found), found
    # Its text is all there, but unchecked: a cut line, no record (as `audit repair`,
    # which drops it, reads it): the run has no end line.
    assert "line 1: run 01234567 has no end line: the crawl was killed, or the trail was " \
        "cut after it" in found, found  # fmt: skip
    assert "line 6: cut: the line has no end" in found, found


def test_a_line_cut_just_before_its_newline_is_no_record(tmp_path: Path) -> None:
    """Whole JSON, but no newline: the end of the file fell inside the line, which is no
    evidence of what it would have said."""
    path = write_trail(tmp_path / "t.jsonl")
    path.write_bytes(path.read_bytes()[:-1])
    found = [str(f) for f in verify(path).findings]
    assert found == [
        "line 6: cut: the line has no end",
        "file: line 6: the file is cut (no newline at its end)",
        "line 1: run 01234567 has no end line: the crawl was killed, or the trail was cut after it",
    ], found


def test_a_second_run_appended_chains_to_the_first(tmp_path: Path) -> None:
    first = encode(standard_records())
    second = encode([{**r, "run": "f" * 32} for r in standard_records()], prev=sha(first[-1]))
    assert verify(write_trail(tmp_path / "t.jsonl", lines=first + second)).clean
    restarted = encode([{**r, "run": "f" * 32} for r in standard_records()])  # prev ""
    found = [
        str(f) for f in verify(write_trail(tmp_path / "u.jsonl", lines=first + restarted)).findings
    ]
    assert any("line 7: chain broken" in f for f in found), found


# ------------------------------------------------------------------ snapshots


def test_a_missing_snapshot_is_listed_with_every_record_it_decided(tmp_path: Path) -> None:
    path = write_trail(tmp_path / "t.jsonl", bodies=())
    found = [str(f) for f in verify(path).findings]
    assert sum("missing" in f for f in found) == 4, found  # the snapshot line and 3 records
    assert any(f.startswith("line 3: http://site.test/: robots.txt snapshot") for f in found)


OTHER_ORIGIN = "http://other.test"


def other(path: str, fate: str = "fetched", **extra: Any) -> dict[str, Any]:
    """A record of OTHER_ORIGIN, decided by the empty body."""
    decided = {**robots_part(None, body=b""), "origin": OTHER_ORIGIN}
    return url_line(path, fate=fate, url=OTHER_ORIGIN + path, robots=decided, **extra)


@pytest.mark.parametrize(
    ("outcome", "record", "expected"),
    [
        (None, other("/private/a"), ""),
        ("unreachable", other("/a", "refused", refused_by="unreachable"), ""),
        ("unreachable", other("/a"), "recorded fetched, but robots.txt disallows it"),
        ("absent", other("/a"), ""),
    ],
    ids=["absent-by-the-bodys-line", "unreachable-refused", "unreachable-fetched", "absent"],
)  # fmt: skip
def test_the_empty_body_is_read_with_the_outcome_of_its_own_origin(
    tmp_path: Path, outcome: str | None, record: dict[str, Any], expected: str
) -> None:
    """The empty body is every absent robots.txt: read with its own origin's snapshot
    line when there is one, else with the body's line (absent: everything allowed)."""
    body = [
        snapshot_line(b"", outcome="absent", status=404),
        url_line("/", robots=robots_part(None, body=b"")),
    ]
    if outcome is not None:
        body.append(
            snapshot_line(b"", outcome=outcome, status=503, url=f"{OTHER_ORIGIN}/robots.txt")
        )
    body.append(record)
    found = [
        str(f)
        for f in verify(
            write_trail(tmp_path / "t.jsonl", [run_line(), *body, end_line(body)])
        ).findings
    ]
    assert [f for f in found if expected in f] if expected else found == [], found


def test_a_snapshot_read_from_its_gz_file(tmp_path: Path) -> None:
    path = write_trail(tmp_path / "t.jsonl", bodies=())
    (tmp_path / "t.jsonl.d" / f"{sha(ROBOTS)}.gz").write_bytes(gzip.compress(ROBOTS))
    assert verify(path).clean


def test_a_snapshot_whose_bytes_changed_is_reported(tmp_path: Path) -> None:
    path = write_trail(tmp_path / "t.jsonl")
    (tmp_path / "t.jsonl.d" / sha(ROBOTS)).write_bytes(ROBOTS.replace(b"/private", b"/privat"))
    found = [str(f) for f in verify(path).findings]
    assert any("altered: its bytes no longer hash to its name" in f for f in found), found


# ------------------------------------------------------------------ re-derivation

OTHER = b"User-agent: *\nDisallow: /\n"
USAGE_ROBOTS = b"User-agent: *\nAllow: /\nContent-Usage: /books/ train-ai=n\n"


def one(record: dict[str, Any], body: bytes = ROBOTS, **run: Any) -> list[dict[str, Any]]:
    body_lines = [snapshot_line(body), record]
    return [run_line(**run), *body_lines, end_line(body_lines)]


GPTBOT = b"User-agent: GPTBot\nDisallow: /\n"
CU_SOURCE = "robots.txt line 3: Content-Usage: /books/ train-ai=n"
BY_USAGE_ROBOTS = robots_part(2, "Allow: /", body=USAGE_ROBOTS)
UNREACHABLE = snapshot_line(b"", outcome="unreachable", status=503)
NO_ROBOTS = robots_part(None, body=b"")
AI = {"purposes": ["ai-train"]}
DROPPED = "unreachable for 600 s (503): requests dropped"
ALLOWED = "unreachable for 3 s (503): treated as allowed (REP_UNREACHABLE_ACTION)"
ABSENT = "404: no robots.txt, everything allowed"
GAVE_UP_DROPPED = {"agent": "testbot", "why": f"robots.txt {DROPPED}"}
#: A host that cannot be connected to: given up on after the connect wait and dropped,
#: even with REP_UNREACHABLE_ACTION = "allow" (the lifecycle's give-up rule).
CONNECT_DROPPED = "unreachable for 10 s (unreachable (ConnectionRefusedError: …)): requests dropped"


def words(
    outcome: str, status: int | None, record: dict[str, Any], body: bytes = b""
) -> list[dict[str, Any]]:
    """A run whose robots.txt snapshot has the crawl's own outcome sentence."""
    return [run_line(), snapshot_line(body, status=status, outcome=outcome), record]


def usage(answer: bool) -> dict[str, Any]:
    """A recorded usage decision: the Content-Usage line of USAGE_ROBOTS said ``answer``."""
    signal = {"vocabulary": "aipref", "answers": {"ai-train": answer}, "source": CU_SOURCE,
              "snapshot": sha(USAGE_ROBOTS)}  # fmt: skip
    return {"answers": {"ai-train": False}, "decided_by": {"ai-train": 0}, "signals": [signal]}


SIGNAL_ROBOTS = b"User-agent: *\nAllow: /\nContent-Signal: ai-train=no\n"


def signalled(source: str) -> dict[str, Any]:
    """A recorded usage decision: a Content-Signal line of SIGNAL_ROBOTS said no."""
    signal = {"vocabulary": "content-signal", "answers": {"ai-train": False}, "source": source,
              "snapshot": sha(SIGNAL_ROBOTS)}  # fmt: skip
    return {"answers": {"ai-train": False}, "decided_by": {"ai-train": 0}, "signals": [signal]}


def refused(path: str, by: str, decided: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return url_line(path, fate="refused", refused_by=by, robots=decided, **extra)


def tdm_run(record: dict[str, Any], **run: Any) -> list[dict[str, Any]]:
    return [run_line(**run), snapshot_line(), snapshot_line(TDMREP, kind="tdmrep.json"), record]


#: (id, records, bodies, the difference expected or "" for clean)
DECISIONS: list[tuple[str, list[dict[str, Any]], tuple[bytes, ...], str]] = [
    ("fetched-but-now-disallowed",
     one(url_line("/a", robots=robots_part(None, body=OTHER)), OTHER), (OTHER,),
     "recorded fetched, but robots.txt disallows it for testbot (line 2: Disallow: /)"),
    ("refused-but-now-allowed",
     one(refused("/a", "robots.txt", robots_part(2, "Disallow: /private"))), (ROBOTS,),
     "recorded refused by robots.txt, but it allows it"),
    ("deciding-line-differs",
     one(url_line("/private/ok/1", robots=robots_part(2, "Disallow: /private"))), (ROBOTS,),
     "recorded as decided by line 2, the snapshot gives line 3"),
    ("an-extra-agent-forbidden",
     one(url_line("/a", robots=robots_part(None, body=GPTBOT)), GPTBOT,
         agents=["testbot", "GPTBot"]),
     (GPTBOT,), "robots.txt disallows it for GPTBot"),
    ("absent-robots-allows-all", one(url_line("/a", robots=NO_ROBOTS), b""), (), ""),
    ("unreachable-robots-refuses",
     [run_line(), UNREACHABLE, refused("/a", "unreachable", NO_ROBOTS)], (), ""),
    ("fetched-although-unreachable",
     [run_line(), UNREACHABLE, url_line("/a", robots=NO_ROBOTS)], (),
     "recorded fetched, but robots.txt disallows"),
    ("gave-up-with-allow",
     [run_line(settings={"REP_UNREACHABLE_ACTION": "allow"}),
      snapshot_line(b"", outcome="gave-up", status=None), url_line("/a", robots=NO_ROBOTS)],
     (), ""),
    ("content-usage-no-but-fetched",
     one(url_line("/books/1", robots=BY_USAGE_ROBOTS), USAGE_ROBOTS, **AI), (USAGE_ROBOTS,),
     f"recorded fetched, but ai-train denied by {CU_SOURCE}"),
    ("content-usage-refusal-re-derived",
     one(refused("/books/1", "purpose", BY_USAGE_ROBOTS, usage=usage(False)), USAGE_ROBOTS, **AI),
     (USAGE_ROBOTS,), ""),
    ("usage-signal-answers-differently",
     one(refused("/books/1", "purpose", BY_USAGE_ROBOTS, usage=usage(True)), USAGE_ROBOTS, **AI),
     (USAGE_ROBOTS,), "answers differently today"),
    ("refused-by-purpose-but-nothing-says-no",
     one(refused("/a", "purpose", robots_part(None)), **AI), (ROBOTS,),
     "recorded refused by purpose, but its snapshots deny no purpose"),
    ("content-signal-of-an-earlier-release-one-signal-without-its-line",
     one(refused("/a", "purpose", robots_part(2, "Allow: /", body=SIGNAL_ROBOTS),
                 usage=signalled("robots.txt Content-Signal: ai-train=no")),
         SIGNAL_ROBOTS, **AI), (SIGNAL_ROBOTS,), ""),
    ("content-signal-with-its-line",
     one(refused("/a", "purpose", robots_part(2, "Allow: /", body=SIGNAL_ROBOTS),
                 usage=signalled("robots.txt line 3: Content-Signal: ai-train=no")),
         SIGNAL_ROBOTS, **AI), (SIGNAL_ROBOTS,), ""),
    ("content-signal-of-another-line",
     one(refused("/a", "purpose", robots_part(2, "Allow: /", body=SIGNAL_ROBOTS),
                 usage=signalled("robots.txt line 4: Content-Signal: ai-train=no")),
         SIGNAL_ROBOTS, **AI), (SIGNAL_ROBOTS,), "is not in its snapshot"),
    ("tdmrep-reserved-but-fetched",
     tdm_run(url_line("/books/1", robots=robots_part(None)), **AI), (ROBOTS, TDMREP),
     'recorded fetched, but ai-train denied by tdmrep.json entry 1 (location "/books/*")'),
    ("tdmrep-reserved-and-refused",
     tdm_run(refused("/books/1", "tdmrep.json", robots_part(None)), **AI), (ROBOTS, TDMREP), ""),
    ("tdmrep-only-for-ai-purposes",
     tdm_run(url_line("/books/1", robots=robots_part(None))), (ROBOTS, TDMREP), ""),
    ("crawl-words-gave-up-dropped", words(DROPPED, None, url_line("/a", robots=NO_ROBOTS)), (),
     "recorded fetched, but robots.txt disallows"),
    ("crawl-words-gave-up-allowed", words(ALLOWED, None, url_line("/a", robots=NO_ROBOTS)), (), ""),
    ("crawl-words-404", words(ABSENT, 404, url_line("/private/a", robots=NO_ROBOTS)), (), ""),
    ("crawl-words-503-refuses",
     words("503: unreachable", 503, refused("/a", "unreachable", NO_ROBOTS)), (), ""),
    ("crawl-words-200-parsed",
     words("200 (88 bytes)", 200, url_line("/private/a", robots=robots_part(None)), ROBOTS),
     (ROBOTS,), "recorded fetched, but robots.txt disallows"),
    ("given-up-and-allowed-by-the-setting",
     [run_line(settings={"REP_UNREACHABLE_ACTION": "allow"}),
      url_line("/a", robots={"agent": "testbot", "why": f"robots.txt {ALLOWED}"})], (), ""),
    ("given-up-allowed-but-the-setting-drops",
     [run_line(), url_line("/a", robots={"agent": "testbot", "why": f"robots.txt {ALLOWED}"})], (),
     "given up on as unreachable and the run's REP_UNREACHABLE_ACTION is not 'allow'"),
    ("given-up-and-refused",
     [run_line(), refused("/a", "unreachable", GAVE_UP_DROPPED)], (), ""),
    ("given-up-dropped-but-fetched-under-allow",
     [run_line(settings={"REP_UNREACHABLE_ACTION": "allow"}),
      url_line("/a", robots={"agent": "testbot", "why": f"robots.txt {CONNECT_DROPPED}"})], (),
     "recorded fetched, but its robots.txt was given up on as unreachable and its requests "
     "dropped"),
    ("no-origin-in-robots",
     one(url_line("/private/a",
                  robots={k: v for k, v in robots_part(None).items() if k != "origin"})),
     (ROBOTS,), "recorded fetched, but robots.txt disallows it"),
    ("fetched-without-a-robots-snapshot",
     one(url_line("/a")), (ROBOTS,), "no robots.txt snapshot names what allowed it"),
    ("failed-before-its-send-without-a-robots-snapshot",
     one(url_line("/a", "failed", attempts=0, status=None, why="IgnoreRequest: not there")),
     (ROBOTS,), ""),
    ("failed-once-sent-without-a-robots-snapshot",
     one(url_line("/a", "failed", status=None, why="IgnoreRequest: not there")), (ROBOTS,),
     "no robots.txt snapshot names what allowed it"),
    ("failed-before-its-send-said-in-a-string",
     one(url_line("/a", "failed", attempts="0", status=None)), (ROBOTS,),
     "no robots.txt snapshot names what allowed it"),
    ("two-final-records-for-one-request",
     [run_line(), snapshot_line(), url_line("/a", robots=robots_part(None)),
      url_line("/a", robots=robots_part(None))], (ROBOTS,),
     "a second final record for the same request id"),
    ("url-line-appended-after-the-end",
     [*one(url_line("/a", robots=robots_part(None))), url_line("/b", robots=robots_part(None))],
     (ROBOTS,), "line 5: http://site.test/b: url line of run 01234567 after its end line (line 4)"),
    ("snapshot-name-is-a-path",
     one(url_line("/a", robots={**robots_part(None), "snapshot": "../../../../etc/hostname"})),
     (ROBOTS,),
     "robots.txt snapshot ../../../../… not a SHA-256 name"),
    ("unknown-schema",
     [run_line(schema=4), snapshot_line(), url_line("/", robots=robots_part(None))],
     (ROBOTS,), "run 01234567: schema 4; this reader knows schemas 1, 2 and 3"),
    ("snapshot-line-of-unknown-run",
     [run_line(), {**snapshot_line(), "run": "9" * 32}, url_line("/a", robots=robots_part(None))],
     (ROBOTS,), "snapshot line of run '99999999', which has no run line"),
]  # fmt: skip


@pytest.mark.parametrize(("records", "bodies", "expected"), [c[1:] for c in DECISIONS],
                         ids=[c[0] for c in DECISIONS])  # fmt: skip
def test_verify_re_derives_each_decision(
    tmp_path: Path, records: list[dict[str, Any]], bodies: tuple[bytes, ...], expected: str
) -> None:
    if records[-1]["type"] != "end":
        records = [*records, end_line(records)]
    result = verify(write_trail(tmp_path / "t.jsonl", records, bodies=bodies))
    found = [str(finding) for finding in result.findings]
    if expected:
        assert any(expected in finding for finding in found), found
    else:
        assert found == []


# ------------------------------------------------------------------ not a trail


def test_not_a_trail(tmp_path: Path) -> None:
    cases = {
        "missing.jsonl": None,
        "empty.jsonl": b"",
        "text.jsonl": b"hello\nworld\nthis is not\na trail\n",
        "array.jsonl": b"[1, 2]\n",
        "plain.jsonl.gz": b'{"type": "run"}\n',
        "gzip-of-text.jsonl.gz": gzip.compress(b"just text\n"),
    }
    for name, content in cases.items():
        if content is not None:
            (tmp_path / name).write_bytes(content)
        with pytest.raises(TrailError, match=name.replace(".", r"\.")):
            verify(tmp_path / name)
    damaged = encode(standard_records())
    damaged[:3] = [b"garbage\n"] * 3  # a trail whose first lines were destroyed is still one
    found = [
        str(f) for f in verify(write_trail(tmp_path / "damaged.jsonl", lines=damaged)).findings
    ]
    assert found[0] == "line 1: not a JSON object: the line was changed or damaged", found
    with pytest.raises(TrailError, match="not a file"):
        Trail(tmp_path)


def test_a_resumed_run_must_not_record_a_request_again(tmp_path: Path) -> None:
    first = standard_records()
    resumed = [{**r, "run": "f" * 32} for r in standard_records()]
    resumed[0]["resumes"] = first[0]["run"]
    result = verify(write_trail(tmp_path / "t.jsonl", first + resumed))
    found = [str(f) for f in result.findings]
    assert len(found) == 3 and all("a second final record" in f for f in found), found


def test_a_head_written_down_earlier_must_still_be_in_the_chain(tmp_path: Path) -> None:
    """The last line is protected by nothing after it: the head an auditor kept is."""
    first = encode(standard_records())
    head = verify(write_trail(tmp_path / "t.jsonl", lines=first)).head
    second = encode([{**r, "run": "f" * 32} for r in standard_records()], prev=sha(first[-1]))
    assert verify(write_trail(tmp_path / "t.jsonl", lines=first + second), [head]).clean
    edited = [*first[:-1], first[-1].replace(b'"finished"', b'"shutdown"')]
    cut = first[:-1]
    for lines in (edited, cut):
        found = [
            str(f) for f in verify(write_trail(tmp_path / "u.jsonl", lines=lines), [head]).findings
        ]
        assert any(f"no line hashes to the head {head}" in f for f in found), found
    assert verify(write_trail(tmp_path / "e.jsonl", lines=edited)).clean  # without the head


def test_url_lines_appended_after_a_runs_end_are_reported_even_with_its_head(
    tmp_path: Path,
) -> None:
    """Lines chained on after a run's end line, with that run's id, are no part of it:
    reported, whatever head was written down, while a following run (its own run line
    and id) is fine."""
    first = encode(standard_records())
    head = sha(first[-1])
    forged = [
        url_line("/forged", robots=robots_part(None)),
        url_line("/more", robots=robots_part(None)),
    ]
    path = write_trail(tmp_path / "t.jsonl", lines=first + encode(forged, prev=head))
    result = verify(path, [head])
    found = [str(f) for f in result.findings]
    assert found == [
        f"line {n}: http://site.test{p}: url line of run 01234567 after its end line (line 6): "
        "appended after the run ended"
        for n, p in ((7, "/forged"), (8, "/more"))
    ], found


TDMREP_ALL = b'[{"location": "/*", "tdm-reservation": 1}]'
DENIED_ALL = 'recorded fetched, but ai-train denied by tdmrep.json entry 1 (location "/*")'
UNNAMED = "recorded fetched, but names no tdmrep.json of http://site.test, which its request"


@pytest.mark.parametrize(
    ("named", "schema", "expected"),
    [
        (TDMREP, 2, ""),  # no entry of the version it names matched /a
        (TDMREP_ALL, 2, DENIED_ALL),
        (None, 2, UNNAMED),  # schema 2 names every version: none named, left out
        (None, 1, DENIED_ALL),
    ],
    ids=["names-the-old-version", "names-the-new-version", "names-none", "schema-1-latest"],
)  # fmt: skip
def test_a_record_is_re_derived_with_the_tdmrep_json_version_it_names(
    tmp_path: Path, named: bytes | None, schema: int, expected: str
) -> None:
    """tdmrep.json changed during the run: /a, which no entry of the first version
    matched, is re-derived with the version its record names (schema 2), not the latest
    one (what schema 1, which named none, falls back to). A schema 2 record of a request
    sent names the version it was decided with: one that names none left it out."""
    extra = {} if named is None else {"tdmrep": sha(named)}
    body = [
        snapshot_line(),
        snapshot_line(TDMREP, kind="tdmrep.json"),
        snapshot_line(TDMREP_ALL, kind="tdmrep.json"),
        url_line("/a", robots=robots_part(None), **extra),
    ]
    records = [run_line(schema=schema, purposes=["ai-train"]), *body, end_line(body)]
    path = write_trail(tmp_path / "t.jsonl", records, bodies=(ROBOTS, TDMREP, TDMREP_ALL))
    found = [str(f) for f in verify(path).findings]
    assert [f for f in found if expected in f] if expected else found == [], found


def test_a_run_line_that_reuses_a_run_id_is_a_problem(tmp_path: Path) -> None:
    """A run's id is its own (the writer draws a new one each run): a second run line
    with it is no new run, but lines passed off as that run's."""
    first = encode(standard_records())
    again = encode([run_line(), url_line("/more", robots=robots_part(None))], prev=sha(first[-1]))
    found = [
        str(f) for f in verify(write_trail(tmp_path / "t.jsonl", lines=first + again)).findings
    ]
    assert found[0] == (
        "line 7: run 01234567: a second run line for this id (the first: line 1): a run's id "
        "is its own"
    ), found


# ------------------------------------------------------------------ a resumed run

PAUSED = RUN
RESUMED = "f" * 32


def paused_run() -> list[dict[str, Any]]:
    """A run paused with JOBDIR (its end line's reason ``shutdown``)."""
    records = standard_records()
    records[-1] = {**records[-1], "reason": "shutdown"}
    return records


def resumed_run(head: str, trail: str = "paused.jsonl", resumes: str = PAUSED) -> list[Any]:
    """The run that resumes :func:`paused_run`, naming it, its trail and its end line."""
    body = [
        snapshot_line(run=RESUMED),
        url_line("/resumed", run=RESUMED, robots=robots_part(None)),
    ]
    head_line = run_line(run=RESUMED, resumes=resumes, resumes_trail=trail, resumes_head=head)
    return [head_line, *body, end_line(body, run=RESUMED)]


def test_a_run_resumed_into_a_new_trail_names_the_paused_run_missing(tmp_path: Path) -> None:
    """A JOBDIR crawl resumed into another REP_AUDIT_FILE: the new trail alone lacks the
    paused run (a problem naming its id), unless the paused run's trail is given too."""
    paused = encode(paused_run())
    first = write_trail(tmp_path / "paused.jsonl", lines=paused)
    second = write_trail(tmp_path / "resumed.jsonl", resumed_run(sha(paused[-1])))
    assert [str(f) for f in verify(second).findings] == [
        f"line 1: run ffffffff resumes run {PAUSED} (paused with JOBDIR; its trail: "
        "paused.jsonl), which is not in this trail: the crawl's records before the pause are "
        "missing; verify the trails together (audit verify EARLIER THIS)"
    ]
    assert verify(second, also=[first, second]).clean
    assert verify(first, also=[first, second]).clean
    status, out = audit_tool("verify", str(second))
    assert status == 1 and f"resumes run {PAUSED}" in out
    status, out = audit_tool("verify", str(first), str(second))
    assert status == 0 and out.splitlines()[-1] == "2 trails as one: clean", out
    # The paused run's end line is the last of its file: nothing there protects it, the
    # resumed run's header does.
    first.write_bytes(b"".join([*paused[:-1], paused[-1].replace(b'"shutdown"', b'"finished"')]))
    assert verify(first).clean
    assert [f.what for f in verify(second, also=[first]).findings] == [
        f"run ffffffff resumes run {PAUSED} (in paused.jsonl) from its end line hashing to "
        f"{sha(paused[-1])[:16]}…, which is no end line of that run there: it was changed or cut"
    ]
    other = write_trail(tmp_path / "other.jsonl", lines=encode([run_line(run="d" * 32)]))
    found = [f.what for f in verify(second, also=[other]).findings]
    assert found and "nor in the other trails given" in found[0], found


def test_a_run_resumed_in_the_same_trail_is_checked_against_the_paused_runs_end(
    tmp_path: Path,
) -> None:
    paused = encode(paused_run())
    resumed = encode(resumed_run(sha(paused[-1]), "t.jsonl"), prev=sha(paused[-1]))
    assert verify(write_trail(tmp_path / "t.jsonl", lines=paused + resumed)).clean
    wrong = encode(resumed_run("0" * 64, "t.jsonl"), prev=sha(paused[-1]))
    found = [
        str(f) for f in verify(write_trail(tmp_path / "u.jsonl", lines=paused + wrong)).findings
    ]
    assert found == [
        f"line 7: run ffffffff resumes run 01234567 from its end line hashing to "
        f"{'0' * 16}…, but that run's end line (line 6) hashes to {sha(paused[-1])[:16]}…: "
        "it was changed"
    ]
    open_paused = paused[:-1]
    early = encode(resumed_run(""), prev=sha(open_paused[-1]))
    found = [
        str(f)
        for f in verify(write_trail(tmp_path / "v.jsonl", lines=open_paused + early)).findings
    ]
    assert "line 6: run ffffffff resumes run 01234567, which has no end line before it: " \
        "a run resumes a paused run, ended" in found, found  # fmt: skip
    later = encode(resumed_run("", resumes=RESUMED.replace("f", "e")))
    later += encode([{**r, "run": "e" * 32} for r in standard_records()], prev=sha(later[-1]))
    found = [str(f) for f in verify(write_trail(tmp_path / "w.jsonl", lines=later)).findings]
    assert found == [f"line 1: run ffffffff resumes run {'e' * 32}, which starts after it (line 5)"]


SENT_AS_ROBOTS = b"User-agent: testbot\nAllow: /\n\nUser-agent: googlebot\nDisallow: /g\n"


@pytest.mark.parametrize(
    ("fate", "findings"),
    [("refused", False), ("fetched", True)],
    ids=["refused-for-the-name-sent-as", "fetched-though-the-name-sent-as-refuses"],
)
def test_verify_re_derives_a_record_for_every_name_it_was_held_to(
    tmp_path: Path, fate: str, findings: bool
) -> None:
    """A record with ``robots.agents`` (docs/audit-trail.md) is re-derived for each name:
    googlebot's ``Disallow: /g`` refuses it though testbot's group allows it."""
    robots = {**robots_part(5, "Disallow: /g", SENT_AS_ROBOTS, "googlebot"),
              "agents": ["testbot", "googlebot"]}  # fmt: skip
    extra: dict[str, Any] = {"robots": robots}
    if fate == "refused":
        extra.update(status=None, refused_by="robots.txt", why="Forbidden")
    else:
        robots["agent"] = "testbot"
        robots.update(why="no rule matches")
        del robots["line"], robots["rule"]
    body = [snapshot_line(SENT_AS_ROBOTS), url_line("/g/page", fate, **extra)]
    trail = write_trail(tmp_path / "trail.jsonl", [run_line(), *body, end_line(body)],
                        bodies=(SENT_AS_ROBOTS,))  # fmt: skip
    found = [str(finding) for finding in verify(trail).findings]
    assert bool(found) is findings, found
    if findings:
        assert "recorded fetched, but robots.txt disallows it for googlebot" in found[0]


@pytest.mark.parametrize(
    ("sent_at", "expires", "overridden", "finding"),
    [
        ("2026-11-23T14:00:01.500Z", "2026-11-23T14:00:02.000Z", "", ""),
        ("2026-11-23T14:00:02.000Z", "2026-11-23T14:00:02.000Z", "", ""),  # same millisecond
        ("2026-11-23T14:00:02.001Z", "2026-11-23T14:00:02.000Z", "", "had stopped holding"),
        ("2026-11-23T14:00:03.000Z", "", "ok (until 2026-11-23T15:00:02+01:00)", "had expired"),
        ("2026-11-23T14:00:01.000Z", "", "ok (until 2026-11-23T15:00:02+01:00)", ""),
        # an expires that forgets the override's own expiry does not hide it
        (
            "2026-11-23T14:00:03.000Z",
            "2099-01-01T00:00:00.000Z",
            "ok (until 2026-11-23T14:00:02+00:00)",
            "had expired",
        ),
    ],
    ids=["before", "same-ms", "after", "after-override", "before-override", "forged-expires"],
)
def test_verify_reports_a_record_sent_after_what_it_rests_on_expired(
    sent_at: str, expires: str, overridden: str, finding: str
) -> None:
    """docs/audit-trail.md, ``sent_at`` and ``expires``: a request is sent under a verdict
    that holds until its documents' freshness or its override ends; one sent after is a
    problem, whatever its record's ``expires`` claims about an override."""
    from rep_audit.verify import sent_after_expiry

    record: dict[str, Any] = {"sent_at": sent_at, "robots": {"agent": "testbot"}}
    if expires:
        record["expires"] = expires
    if overridden:
        record["robots"]["overridden"] = overridden
    found = sent_after_expiry(record)
    assert (finding in found[0]) if finding else found == [], found
    assert sent_after_expiry({"robots": {}}) == []  # never sent: nothing to say


#: An override of a.example as the run's REP_OVERRIDES gives it (through 2026-11-23, UTC).
OVERRIDE = Override(
    "a.example", "ok", "2026-11-23", datetime(2026, 11, 24, tzinfo=timezone.utc).timestamp()
)


@pytest.mark.parametrize(
    ("overridden", "ends", "overrides", "finding"),
    [
        # this release's words are never read: the value is
        ("ok, through 2026-11-23, UTC", "2026-11-23T14:00:02.000Z", (), "had expired "
         "(2026-11-23T14:00:02.000Z)"),
        ("ok, until 2026-11-23T15:00:02+01:00", "2026-11-23T14:00:02.000Z", (), "had expired"),
        ("ok, through 2026-11-30, UTC", "2026-11-24T00:00:00.000Z", (), ""),
        ("ok, through 2026-11-23, UTC", "yesterday", (), "override_ends 'yesterday' is no time"),
        # without the value: the run's REP_OVERRIDES, never the words
        ("ok, through 2026-11-30, UTC", None, (OVERRIDE,), ""),
        ("ok, through 2026-11-22, UTC", None, (OVERRIDE,), ""),
        # words alone: not passed in silence, whatever they say
        ("ok, until 2026-11-23T15:00:02+01:00", None, (), "given as no value"),
        ("ok, through 2026-11-30, UTC", None, (), "given as no value"),
    ],
    ids=["through-after", "until-after", "before", "no-time", "header-before", "header-not-words",
         "words-alone-until", "words-alone-through"],
)  # fmt: skip
def test_an_overrides_expiry_is_read_as_a_value_never_from_its_words(
    overridden: str, ends: str | None, overrides: tuple[Override, ...], finding: str
) -> None:
    """docs/audit-trail.md, ``override_ends``: a request sent 30 s after the override it
    went past ended is a problem, by the record's ``override_ends``, else by the run's
    ``REP_OVERRIDES``; the words of ``overridden`` (``…, until DATE``, ``…, through
    DATE, UTC``) decide nothing, and a record that has nothing else is reported."""
    from rep_audit.verify import sent_after_expiry

    robots: dict[str, Any] = {"agent": "testbot", "overridden": overridden}
    if ends is not None:
        robots["override_ends"] = ends
    record = {"url": "https://a.example/p", "sent_at": "2026-11-23T14:00:32.000Z",
              "robots": robots}  # fmt: skip
    found = sent_after_expiry(record, overrides)
    assert (len(found) == 1 and finding in found[0]) if finding else found == [], found
    sent_late = {**record, "sent_at": "2026-11-24T00:00:30.000Z"}
    if ends is None and overrides:  # 30 s after the override the run's header names
        assert (
            "had expired (2026-11-23, as the run's REP_OVERRIDES says)"
            in (sent_after_expiry(sent_late, overrides)[0])
        )


#: site.test's override, through 2026-11-23 (UTC): it ends 2026-11-24T00:00:00Z.
LATE_OVERRIDES = [["site.test", "written permission", "2026-11-23"]]


def late_override_trail(tmp_path: Path, **edit: Any) -> Path:
    """A request sent past robots.txt 30 s after its override ended, then ``edit``
    (a value of ``None``: the field dropped), the chain written anew as a forger would."""
    robots = {
        **robots_part(2, "Disallow: /private"),
        "overridden": "written permission, through 2026-11-23, UTC",
        "override_ends": "2026-11-24T00:00:00.000Z",
    }
    record = url_line("/private/x", robots=robots, sent_at="2026-11-24T00:00:30.000Z",
                      time="2026-11-24T00:00:31.000Z")  # fmt: skip
    for name, value in edit.items():
        if value is None:
            record.pop(name, None)
        else:
            record[name] = value
    body = [snapshot_line(), record]
    run = run_line(settings={"REP_PROFILE": "google", "REP_OVERRIDES": LATE_OVERRIDES})
    return write_trail(tmp_path / "trail.jsonl", [run, *body, end_line(body)])


def test_verify_reports_a_request_sent_after_its_override_ended(tmp_path: Path) -> None:
    found = [str(f) for f in verify(late_override_trail(tmp_path)).findings]
    assert len(found) == 1 and "after the override it went past had expired" in found[0]


@pytest.mark.parametrize(
    ("edit", "finding"),
    [
        ({"sent_at": None}, "whether it was sent before the override ended cannot be checked"),
        ({"sent_at": "2026-11-20T00:00:00.000Z"}, "before its crawl started"),
        ({"sent_at": "2026-11-23T23:00:00.000Z", "time": "2026-11-23T22:00:00.000Z"},
         "after its record was written"),
        ({"sent_at": "soon"}, "is no time"),
    ],
    ids=["dropped", "before-the-run", "after-its-record", "no-time"],
)  # fmt: skip
def test_verify_bounds_sent_at_by_the_run_and_the_record(
    tmp_path: Path, edit: dict[str, Any], finding: str
) -> None:
    """docs/audit-trail.md, ``sent_at``: a request's ``sent_at`` is not before its crawl
    started nor after its record was written; a record sent past an override, written
    after that override ended, without ``sent_at``, cannot be checked and is reported."""
    found = [str(f) for f in verify(late_override_trail(tmp_path, **edit)).findings]
    assert len(found) == 1 and finding in found[0], found


def test_a_record_without_sent_at_written_while_its_override_held_is_clean(
    tmp_path: Path,
) -> None:
    """An earlier release wrote no ``sent_at``: a record written before its override
    ended was sent before it too."""
    early = {"sent_at": None, "time": "2026-11-23T14:00:02.000Z"}
    assert verify(late_override_trail(tmp_path, **early)).clean


#: A run's cache settings: a version fresh 7 days at most, then usable stale 30 days.
CACHE_SETTINGS = {"REP_PROFILE": "google", "REP_CACHE_MAX_TTL": 604800.0,
                  "REP_CACHE_STALE_MAX": 2592000.0}  # fmt: skip


def expires_trail(tmp_path: Path, expires: str, settings: dict[str, Any]) -> Path:
    """A request sent a year after the robots.txt version it names was first fetched
    (refetched since, the same body), with ``expires``."""
    record = url_line("/", robots=robots_part(None), sent_at="2027-11-23T14:00:02.000Z",
                      expires=expires, time="2027-11-23T14:00:03.000Z")  # fmt: skip
    body = [snapshot_line(), record]  # fetched 2026-11-23T14:00:01Z
    return write_trail(tmp_path / "trail.jsonl", [run_line(settings=settings), *body,
                                                  end_line(body)])  # fmt: skip


@pytest.mark.parametrize(
    ("expires", "settings", "findings"),
    [
        ("2026-11-24T14:00:01.000Z", CACHE_SETTINGS, 1),  # sent after it: said already
        ("2027-12-30T14:00:02.000Z", CACHE_SETTINGS, 0),  # fresh 7 days, then 30 stale
        ("2027-12-30T14:00:02.002Z", CACHE_SETTINGS, 1),
        ("2099-01-01T00:00:00.000Z", CACHE_SETTINGS, 1),
        # A header without them (the crawl writes every REP_* setting): their defaults,
        # 7 days fresh then 30 stale, as CACHE_SETTINGS.
        ("2099-01-01T00:00:00.000Z", {"REP_PROFILE": "google"}, 1),
        ("2027-12-30T14:00:02.000Z", {"REP_PROFILE": "google"}, 0),
    ],
    ids=[
        "expired",
        "longest",
        "past-longest",
        "2099",
        "settings-unknown",
        "settings-unknown-longest",
    ],
)
def test_verify_bounds_expires_by_the_runs_cache_lifetimes(
    tmp_path: Path, expires: str, settings: dict[str, Any], findings: int
) -> None:
    """docs/audit-trail.md, ``expires``: the crawl holds a version it fetched (at the
    latest when the request was sent) ``REP_CACHE_MAX_TTL`` fresh at most, then
    ``REP_CACHE_STALE_MAX`` stale: an ``expires`` later than ``sent_at`` plus both is
    none the crawl could write (a header that does not give them: their defaults)."""
    found = [str(f) for f in verify(expires_trail(tmp_path, expires, settings)).findings]
    assert len(found) == findings, found


@pytest.mark.parametrize(
    ("expires", "findings"), [("2026-12-30T14:00:03.000Z", 0), ("2099-01-01T00:00:00.000Z", 1)]
)
def test_verify_bounds_expires_from_the_records_time_without_its_sent_at(
    tmp_path: Path, expires: str, findings: int
) -> None:
    """A record with no ``sent_at`` (an earlier release wrote none, or it was dropped):
    its request was sent, if at all, before its record was written (``time``), so its
    ``expires`` is bounded from that."""
    record = url_line("/", robots=robots_part(None), expires=expires,
                      time="2026-11-23T14:00:03.000Z")  # fmt: skip
    body = [snapshot_line(), record]
    path = write_trail(tmp_path / "trail.jsonl",
                       [run_line(settings=CACHE_SETTINGS), *body, end_line(body)])  # fmt: skip
    found = [str(f) for f in verify(path).findings]
    assert len(found) == findings, found
    assert not found or "for a request recorded at 2026-11-23T14:00:03.000Z" in found[0]


OTHER_ROBOTS = b"User-agent: *\nDisallow: /elsewhere\n"
OTHER_SITE = "http://other.test"


def other_site_trail(tmp_path: Path, **robots: Any) -> Path:
    """``/private/x`` of site.test (whose robots.txt disallows it) recorded fetched, its
    robots part ``robots`` (the snapshots of both sites' robots.txt in the trail)."""
    other = f"{OTHER_SITE}/robots.txt"
    decided = {"snapshot": sha(OTHER_ROBOTS), "agent": "testbot", "why": "no rule matches",
               **robots}  # fmt: skip
    body = [
        snapshot_line(),  # site.test: Disallow: /private
        snapshot_line(OTHER_ROBOTS, url=other, final_url=other, bytes=len(OTHER_ROBOTS)),
        url_line("/private/x", robots=decided),
    ]
    return write_trail(tmp_path / "trail.jsonl", [run_line(schema=2), *body, end_line(body)],
                       bodies=(ROBOTS, OTHER_ROBOTS))  # fmt: skip


@pytest.mark.parametrize(
    ("robots", "finding"),
    [
        ({}, "which is not that of its URL's site http://site.test"),
        ({"addressed": OTHER_SITE}, "but names no robots.txt of its URL's site"),
        ({"addressed": OTHER_SITE, "also": sha(ROBOTS)}, "robots.txt disallows it"),
        ({"addressed": "http://third.test", "also": sha(ROBOTS)}, "nor of http://third.test"),
        ({"addressed": OTHER_SITE, "also": sha(OTHER_ROBOTS)}, "not of http://site.test"),
        ({"addressed": OTHER_SITE, "also": ""}, "was given up on as unreachable"),
    ],
    ids=["no-host", "host-alone", "both", "another-host", "also-not-own", "also-given-up"],
)
def test_verify_holds_a_record_to_its_sites_robots_txt(
    tmp_path: Path, robots: dict[str, Any], finding: str
) -> None:
    """docs/audit-trail.md, ``robots``: a record's robots.txt snapshot is of its URL's
    site or of the site its ``Host`` addressed (``addressed``); a request sent so and
    allowed names its URL's site's too (``also``), and is re-derived with both; one whose
    URL's site's robots.txt was given up on (``also`` ``""``) was sent only under
    ``REP_UNREACHABLE_ACTION = "allow"`` (SPEC §4: else it disallows everything). (A
    schema 1 run wrote a body's snapshot line once, for the first site that served it:
    its records are not held so.)"""
    found = [str(f) for f in verify(other_site_trail(tmp_path, **robots)).findings]
    assert found and finding in found[0], found


@pytest.mark.parametrize(("action", "clean"), [("allow", True), ("drop", False)])
def test_a_request_sent_with_another_host_its_urls_robots_txt_given_up_on(
    tmp_path: Path, action: str, clean: bool
) -> None:
    """``also`` ``""``: the URL's site's robots.txt was given up on as unreachable; the
    crawl sent the request only if its give-up verdict allows (``REP_UNREACHABLE_ACTION``)."""
    other = f"{OTHER_SITE}/robots.txt"
    decided = {"snapshot": sha(OTHER_ROBOTS), "agent": "testbot", "why": "no rule matches",
               "addressed": OTHER_SITE, "also": ""}  # fmt: skip
    body = [
        snapshot_line(OTHER_ROBOTS, url=other, final_url=other, bytes=len(OTHER_ROBOTS)),
        url_line("/open", robots=decided),
    ]
    settings = {"REP_PROFILE": "google", "REP_UNREACHABLE_ACTION": action}
    header = run_line(schema=2, settings=settings)
    path = write_trail(tmp_path / "trail.jsonl", [header, *body, end_line(body)],
                       bodies=(OTHER_ROBOTS,))  # fmt: skip
    found = [str(f) for f in verify(path).findings]
    assert (found == []) if clean else any("given up on" in f for f in found), found


def test_a_schema_1_record_is_held_to_its_urls_sites_robots_txt(tmp_path: Path) -> None:
    """A schema 1 run read no ``Host``: a record naming another site's robots.txt
    (``origin``) is reported, though its snapshot lines are not held per site."""
    other = f"{OTHER_SITE}/robots.txt"
    decided = {"origin": OTHER_SITE, "snapshot": sha(OTHER_ROBOTS), "agent": "testbot",
               "why": "no rule matches"}  # fmt: skip
    body = [
        snapshot_line(),  # site.test: Disallow: /private
        snapshot_line(OTHER_ROBOTS, url=other, final_url=other, bytes=len(OTHER_ROBOTS)),
        url_line("/private/x", robots=decided),
    ]
    path = write_trail(tmp_path / "trail.jsonl", [run_line(schema=1), *body, end_line(body)],
                       bodies=(ROBOTS, OTHER_ROBOTS))  # fmt: skip
    found = [str(f) for f in verify(path).findings]
    assert found and f"names the robots.txt of {OTHER_SITE}, not of its URL's site" in found[0]


#: An older version of site.test's robots.txt, which allows everything.
OPEN_ROBOTS = b"User-agent: *\nAllow: /\n"


def older_snapshot_runs(later: dict[str, Any], snapshots: bool = True) -> list[bytes]:
    """A schema 2 run that read :data:`OPEN_ROBOTS` and fetched ``/``, then the run
    ``later`` (its header's fields) whose ``/private/x`` is recorded fetched naming that
    snapshot (its own snapshot line, of :data:`ROBOTS`, when ``snapshots``)."""
    decided = {"snapshot": sha(OPEN_ROBOTS), "agent": "testbot", "line": 2, "rule": "Allow: /"}
    first = [snapshot_line(OPEN_ROBOTS, bytes=len(OPEN_ROBOTS)), url_line("/", robots=decided)]
    paused = encode([run_line(schema=2), *first, end_line(first, reason="shutdown")])
    at = {"time": "2026-11-23T15:00:02.000Z"}
    second = [
        *([{**snapshot_line(), "run": RESUMED, "time": "2026-11-23T15:00:01.000Z",
            "fetched": "2026-11-23T15:00:01.000Z"}] if snapshots else []),
        {**url_line("/private/x", robots=decided), "run": RESUMED, **at},
    ]  # fmt: skip
    header = run_line(schema=2, run=RESUMED, time="2026-11-23T15:00:00.000Z", **later)
    if later.get("resumes"):
        header["resumes_head"] = sha(paused[-1])
    return paused + encode([header, *second, end_line(second, run=RESUMED, **at)],
                           prev=sha(paused[-1]))  # fmt: skip


def test_a_record_names_a_robots_txt_snapshot_its_own_run_announced(tmp_path: Path) -> None:
    """docs/audit-trail.md, ``robots``: from schema 2 each run writes its own ``snapshot``
    line for every body it uses; a record naming another run's snapshot (an older version
    of its site's robots.txt, which allowed it) is reported."""
    lines = older_snapshot_runs({})
    path = write_trail(tmp_path / "t.jsonl", lines=lines, bodies=(ROBOTS, OPEN_ROBOTS))
    found = [str(f) for f in verify(path).findings]
    assert found and "did not announce (another run's)" in found[0], found


def test_a_resumed_run_may_name_the_snapshots_of_the_run_it_resumes(tmp_path: Path) -> None:
    """A JOBDIR resume carries on its paused run's open records, decided with the paused
    run's snapshots: those are its crawl's own."""
    lines = older_snapshot_runs({"resumes": RUN, "resumes_trail": "t.jsonl"}, snapshots=False)
    path = write_trail(tmp_path / "t.jsonl", lines=lines, bodies=(ROBOTS, OPEN_ROBOTS))
    assert [str(f) for f in verify(path).findings] == []


def test_a_request_sent_with_another_host_and_allowed_by_both_verifies_clean(
    tmp_path: Path,
) -> None:
    other = f"{OTHER_SITE}/robots.txt"
    decided = {"snapshot": sha(OTHER_ROBOTS), "agent": "testbot", "why": "no rule matches",
               "addressed": OTHER_SITE, "also": sha(ROBOTS)}  # fmt: skip
    body = [
        snapshot_line(),
        snapshot_line(OTHER_ROBOTS, url=other, final_url=other, bytes=len(OTHER_ROBOTS)),
        url_line("/open", robots=decided),
    ]
    path = write_trail(tmp_path / "trail.jsonl", [run_line(schema=2), *body, end_line(body)],
                       bodies=(ROBOTS, OTHER_ROBOTS))  # fmt: skip
    assert list(verify(path).findings) == []
