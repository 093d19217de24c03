"""A recheck's documents within a bound (:mod:`rep_recheck.store`): each origin's
documents kept compact (in memory, then in an SQLite file), at most
``REP_RECHECK_PARSED_ORIGINS`` of them parsed; an origin evicted and asked for again is
made again with the same entries, so the same decisions, evidence and trail."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import marshal
import zlib
from pathlib import Path
from typing import Any

import pytest

from rep_audit.verify import verify
from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import TDMREP
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.robotstxt import DISALLOW_ALL, parse_robotstxt
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError
from rep_engine.urls.origins import Origin, origin_of
from rep_engine.usage.tdmrep import NO_FILE
from rep_engine.verdict.decide import LICENSE, ROBOTS, TDM
from rep_recheck import store as store_module
from rep_recheck.command import EXIT_REMOVED, EXIT_USAGE, FetchRequest, FetchResult, main
from rep_recheck.documents import OriginDocuments
from rep_recheck.outputs import evidence
from rep_recheck.rechecker import Identity, Outcome, Rechecker
from rep_recheck.store import DocumentStore, OriginsEvidence, compact, rebuilt
from tests.support.recheck import report_lines, write_jsonl

ROBOTS_BODY = b"User-agent: *\nDisallow: /private\nAllow: /\n"
TDM_BODY = b'[{"location": "/tdm/*", "tdm-reservation": 1}]'
LICENSE_URL = "https://licenses.example/rsl.xml"
LICENSE_BODY = (
    b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/">'
    b'<license><prohibits type="usage">ai-train</prohibits></license></content></rsl>'
)
NOW = 1_700_000_000.0
FAR = 1e20


def _origin(name: str) -> Origin:
    origin = origin_of(f"{name}/")
    assert origin is not None
    return origin


def _cache_entry(
    kind: Any, body: bytes, status: int = 200, truncated: bool = False
) -> CacheEntry[Any]:
    """A downloaded document as the crawl's entry holds it: parsed, its body and SHA-256."""
    return CacheEntry(kind.read(body, truncated), f"{status}", NOW, FAR, FAR, status,
                      zlib.compress(body), False, 100, hashlib.sha256(body).hexdigest(),
                      "", truncated)  # fmt: skip


def _origin_documents(name: str, tdm: bool = True, cut: bool = False) -> OriginDocuments:
    """An origin's robots.txt, its tdmrep.json (or its absence); with one, the RSL
    license its robots.txt names (``cut``: the download cut it short), which refuses
    all its items for ai-train."""
    origin = _origin(name)
    found = OriginDocuments(origin, now=NOW)
    robots_body = ROBOTS_BODY + (f"License: {LICENSE_URL}\n".encode() if tdm else b"")
    sha = hashlib.sha256(robots_body).hexdigest()
    robots = CacheEntry(parse_robotstxt(robots_body), "200", NOW, FAR, FAR, 200,
                        zlib.compress(robots_body), sha256=sha)  # fmt: skip
    found.add(ROBOTS, origin, robots, record=f"<urn:uuid:{name}>")
    if tdm:
        found.add(TDM, origin, _cache_entry(TDMREP, TDM_BODY))
    else:
        found.add(TDM, origin, CacheEntry(NO_FILE, "404", NOW, FAR, FAR, 404))
        found.missing[TDM] = "no tdmrep.json"
    if tdm:
        found.add(LICENSE, LICENSE_URL, _cache_entry(RSL, LICENSE_BODY, truncated=cut))
    return found


def _same_value(one: Any, other: Any) -> Any:
    """A value as compared: a parsed robots.txt by its rules' content, other documents
    by their fields (a document made again is another object, equal in all it says)."""
    if hasattr(one, "plain"):
        return marshal.loads(one.plain()) == marshal.loads(other.plain())
    return one == other or repr(one) == repr(other)


def _outcome(outcome: Outcome) -> tuple[Any, ...]:
    """What an outcome says, its documents' parsed rules compared by content."""
    verdict = outcome.verdict
    if verdict is None:
        return (outcome.status, outcome.why)
    said = {f.name: getattr(verdict, f.name) for f in dataclasses.fields(verdict)}
    used = said.pop("used", ())
    return (outcome.status, outcome.why, repr(said),
            tuple((kind, key, dataclasses.replace(entry, rules=None)) for kind, key, entry in used),
            str(evidence("https://x.example/", outcome)))  # fmt: skip


def test_documents_made_again_from_their_compact_form_are_the_same() -> None:
    """Every entry's fields, the records, ``now`` and ``missing`` come back; a robots.txt
    with the same rules, a tdmrep.json and a cut RSL license parsed again from their
    bodies, a stand-in as the very stand-in (compared by identity)."""
    for tdm in (True, False):
        found = _origin_documents("https://a.example", tdm=tdm, cut=tdm)
        found.add(ROBOTS, _origin("https://b.example"), CacheEntry(DISALLOW_ALL, "gave up",
                  NOW, FAR, FAR, None, b"", True))  # fmt: skip
        again = rebuilt(compact(found))
        assert again.origin == found.origin and type(again.origin) is Origin
        assert (again.now, again.missing, again.records) == (
            found.now,
            found.missing,
            found.records,
        )
        assert list(again.entries) == list(found.entries)
        for key, entry in found.entries.items():
            made = again.entries[key]
            assert dataclasses.replace(made, rules=None) == dataclasses.replace(entry, rules=None)
            assert _same_value(entry.rules, made.rules), key
        assert again.known(TDM, found.origin).rules is NO_FILE or tdm  # type: ignore[union-attr]
        assert again.entries[ROBOTS, _origin("https://b.example")].rules is DISALLOW_ALL


def test_an_evicted_origin_made_again_decides_the_same_and_is_counted() -> None:
    """Three origins, two parsed at most, items round-robin: every item's origin was
    evicted since its last item (an LRU thrashes on round-robin), each made again from
    its compact form, counted; the outcomes are those of the documents held whole."""
    names = ["https://a.example", "https://b.example", "https://c.example"]
    held = {name: _origin_documents(name, tdm=name != names[1]) for name in names}
    store = DocumentStore(parsed_origins=2)
    for name in names:
        store[name] = _origin_documents(name, tdm=name != names[1])
    bounded = RepConfig.from_settings({"REP_PURPOSE": "ai-train", "REP_RECHECK_PARSED_ORIGINS": 2})
    config = RepConfig.from_settings({"REP_PURPOSE": "ai-train"})
    whole = Rechecker(config, Identity("mybot"), lambda o: held.get(str(o)))
    evicting = Rechecker(bounded, Identity("mybot"), store)
    paths = ["/private/x", "/tdm/y", "/open", "/"]
    urls = [f"{name}{path}" for path in paths for name in names] * 2
    for url in urls:
        assert _outcome(evicting.decide(url)) == _outcome(whole.decide(url)), url
    assert {o.status for o in map(whole.decide, urls)} >= {"kept", "refused"}
    assert store.parses == len(urls) and store.reparses == len(urls) - len(names)
    assert store.parsed_times() == {len(urls) // len(names): len(names)}
    assert evicting.forgotten > 0
    grouped = DocumentStore(parsed_origins=2)
    for name in names:
        grouped[name] = held[name]
    each = Rechecker(bounded, Identity("mybot"), grouped)
    for url in sorted(urls):  # grouped by origin: each made once
        assert _outcome(each.decide(url)) == _outcome(whole.decide(url))
    assert grouped.parses == len(names) and grouped.reparses == 0


def test_beyond_its_memory_bound_the_store_spills_to_an_sqlite_file_and_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "_BATCH", 2)
    store = DocumentStore(parsed_origins=1, memory_bytes=1, directory=tmp_path)
    names = [f"https://o{n}.example" for n in range(5)]
    for name in names:
        store[name] = _origin_documents(name)
    assert store.bytes == 0 and store.spilled == 4 and len(store) == 5
    assert sorted(store) == sorted(names) and names[4] in store and "https://x.example" not in store
    for name in names * 2:
        found = store[name]
        assert (
            str(found.origin) == name
            and found.records[ROBOTS, found.origin] == f"<urn:uuid:{name}>"
        )
    assert store.get("https://x.example") is None and store(_origin(names[0])) is not None
    store[names[0]] = _origin_documents(names[0], tdm=False)  # replaced
    assert store[names[0]].known(TDM, _origin(names[0])).rules is NO_FILE  # type: ignore[union-attr]
    del store[names[1]]
    assert len(store) == 4 and names[1] not in store
    assert list(tmp_path.iterdir())
    store.close()
    assert list(tmp_path.iterdir()) == [] and len(store) == 0


def test_the_evidence_memo_lets_go_of_outcomes_when_the_rechecker_forgets() -> None:
    """An outcome holds its origin's parsed documents: the memo keeps none of the
    origins the rechecker forgot (past the bound)."""
    names = ["https://a.example", "https://b.example"]
    store = DocumentStore(parsed_origins=1)
    for name in names:
        store[name] = _origin_documents(name)
    config = RepConfig.from_settings({"REP_RECHECK_PARSED_ORIGINS": 1})
    rechecker = Rechecker(config, Identity("mybot"), store, explain=False)
    memo = OriginsEvidence(rechecker)
    first = rechecker.decide(f"{names[0]}/open")
    memo.of(f"{names[0]}/open", first)
    assert len(memo._known) == 1
    second = rechecker.decide(f"{names[1]}/open")
    memo.of(f"{names[1]}/open", second)
    assert len(memo._known) == 1 and next(iter(memo._known.values()))[0] is second


@pytest.mark.parametrize("value", [0, -5, "many", 2.5, True])
def test_a_wrong_parsed_origins_setting_stops_at_start_naming_it(
    value: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(RepSettingError, match="REP_RECHECK_PARSED_ORIGINS"):
        RepConfig.from_settings({"REP_RECHECK_PARSED_ORIGINS": value})
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, ["https://a.example/"])
    asked: list[FetchRequest] = []

    def fetcher(request: FetchRequest) -> FetchResult:
        asked.append(request)
        return FetchResult()

    argv = [str(dataset), "--purpose", "search", "--no-progress", "-s",
            f"REP_RECHECK_PARSED_ORIGINS={value}"]  # fmt: skip
    assert main(argv, io.StringIO(), fetcher) == EXIT_USAGE and asked == []
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "REP_RECHECK_PARSED_ORIGINS" in err[0], err
    assert RepConfig.defaults().recheck_parsed_origins == store_module.PARSED_ORIGINS


def _recheck_run(
    tmp_path: Path, tag: str, settings: list[str]
) -> tuple[list[Any], list[Any], FetchResult]:
    """A recheck of items round-robin over three origins, its documents put in the
    fetch's store as the crawl puts them; its report lines and its trail's snapshot and
    item lines (without run ids and times)."""
    names = ["https://a.example", "https://b.example", "https://c.example"]
    dataset = tmp_path / "items.jsonl"
    paths = ["/private/1", "/tdm/2", "/open/3", "/"]
    write_jsonl(dataset, [f"{name}{path}" for path in paths for name in names] * 2)
    result = FetchResult()

    def fetcher(request: FetchRequest) -> FetchResult:
        for name in request.origins:
            result.documents[name] = _origin_documents(name, tdm=name != names[1])
        return result

    trail, report = tmp_path / f"{tag}.trail.jsonl", tmp_path / f"{tag}.report.jsonl"
    argv = [str(dataset), "--purpose", "ai-train", "--no-progress", f"--trail={trail}",
            f"--report={report}", *settings]  # fmt: skip
    assert main(argv, io.StringIO(), fetcher) == EXIT_REMOVED
    verified = verify(trail)
    assert verified.clean, verified.findings
    lines = []
    for line in map(json.loads, trail.read_text().splitlines()):
        if line["type"] in ("item", "snapshot"):
            lines.append({k: v for k, v in line.items() if k not in ("run", "time", "prev")})
    return report_lines(report), lines, result


def test_a_recheck_whose_origins_are_evicted_writes_the_same_report_and_trail(
    tmp_path: Path,
) -> None:
    """One origin parsed at most: every item's origin is made again, and the report
    and the trail (its snapshots, each item's documents and evidence) are those of a
    recheck that evicts none."""
    report, trail, result = _recheck_run(
        tmp_path, "evicting", ["-s", "REP_RECHECK_PARSED_ORIGINS=1"]
    )
    whole_report, whole_trail, whole = _recheck_run(tmp_path, "whole", [])
    assert report == whole_report and trail == whole_trail
    assert {line["status"] for line in report} == {"kept", "refused"}
    assert any(line["type"] == "snapshot" for line in trail)
    assert isinstance(result.documents, DocumentStore)
    assert result.documents.reparses > 0 and whole.documents.reparses == 0  # type: ignore[attr-defined]
