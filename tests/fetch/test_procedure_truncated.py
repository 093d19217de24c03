"""The fetch tells each kind's parser that a body was cut (SPEC §4): whatever the body's
length, a tdmrep.json cut short keeps the entries wholly inside the cut, and an RSL
license cut short is unreadable (no AI use). The fact goes with the entry through the
cache's compressed tier and the shared records (the command-line tools fetch as the
crawl does).
"""

from __future__ import annotations

import json
import zlib
from dataclasses import replace
from typing import Any

import pytest

from rep_engine.fetch.cache import DocumentCache
from rep_engine.fetch.kinds import TDMREP
from rep_engine.fetch.lifecycle.shared import downloaded_entry
from rep_engine.fetch.procedure import Fetched, FetchProcedure
from rep_engine.fetch.records import SharedRecord, StoreCorrupt
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.fetch.rules import Policy
from rep_engine.usage.tdmrep import NO_FILE, TdmRepFile, parse_tdmrep

ORIGIN = "https://example.com"


def tdmrep_file() -> bytes:
    """421,941 bytes: entry 1 reserves /books/, the rest are fillers."""
    entries: list[dict[str, Any]] = [{"location": "/books/*", "tdm-reservation": 1}]
    entries += [{"location": f"/filler/{n:05d}", "tdm-reservation": 0} for n in range(8500)]
    return json.dumps(entries).encode()


#: The file cut where the hostile run's download stopped it: 262,050 bytes, mid-entry.
CUT = tdmrep_file()[:262_050]
LICENSE = (
    b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license>'
    b'<permits type="usage">all</permits></license></content>'
    b'<content url="/private/"><license><prohibits type="usage">ai-train</prohibits>'
    b"</license></content></rsl>"
)


def reserved(tdm: TdmRepFile, path: str) -> bool | None:
    entry = tdm.lookup(ORIGIN + path)
    return None if entry is None else entry.reservation


def cut_fetched(body: bytes) -> Fetched:
    step = FetchProcedure(TDMREP, ORIGIN + TDMREP.path).on_response(200, body, truncated=True)
    assert isinstance(step, Fetched)
    return step


def test_a_cut_tdmrep_json_told_truncated_keeps_its_complete_entries() -> None:
    assert b"/filler/04000" in CUT and not CUT.endswith(b"}")  # cut inside an entry
    tdm = parse_tdmrep(CUT, truncated=True)
    assert reserved(tdm, "/books/1") is True
    assert reserved(tdm, "/filler/04000") is False
    assert len(tdm) == CUT.count(b"}")  # every entry wholly inside the cut
    assert TDMREP.read(CUT, True).entries == tdm.entries
    # Told nothing, its length alone cannot say it was cut: an invalid file.
    assert parse_tdmrep(CUT) is NO_FILE
    assert TDMREP.read(CUT, False) is NO_FILE


def test_the_download_entry_of_a_cut_tdmrep_json_keeps_entry_1() -> None:
    fetched = cut_fetched(CUT)
    assert fetched.truncated
    assert fetched.outcome == "200 (262,050 bytes, cut short: the download was stopped)"
    entry = downloaded_entry(TDMREP, Policy(), fetched, 1000.0)
    assert entry.truncated
    assert reserved(entry.rules, "/books/1") is True


def test_a_cut_tdmrep_json_parsed_again_from_the_compressed_tier_is_still_cut() -> None:
    entry = downloaded_entry(TDMREP, Policy(), cut_fetched(CUT), 1000.0)
    whole = downloaded_entry(TDMREP, Policy(), cut_fetched(tdmrep_file()), 1000.0)
    cache: DocumentCache[TdmRepFile] = DocumentCache(1, None, TDMREP.parse, TDMREP.parse_cut)
    cache.put("a", entry)
    cache.put("b", replace(whole, truncated=False))  # "a" goes to the compressed tier
    assert cache.parsed == 1 and "a" in cache
    again = cache.get("a")
    assert again is not None and again.truncated
    assert reserved(again.rules, "/books/1") is True
    assert cache.reparsed == 1
    # restore() (a compacted entry a released request carries) reads it as cut too.
    restored = cache.restore("x", cache.compact(entry))
    assert reserved(restored.rules, "/books/1") is True


def test_a_cut_tdmrep_json_shared_between_processes_is_still_cut() -> None:
    entry = downloaded_entry(TDMREP, Policy(), cut_fetched(CUT), 1000.0)
    record = TDMREP.record_of(ORIGIN, entry, 0, None, 0.0, entry.outcome, 1000.0)
    assert record.truncated
    back = TDMREP.entry_of(SharedRecord.decode(record.encode(), TDMREP.store_name(ORIGIN)))
    assert back.truncated
    assert reserved(back.rules, "/books/1") is True


def test_a_record_of_a_whole_body_reads_as_before() -> None:
    """``truncated`` is in a record's header only when true: other versions of the
    package sharing the store read a whole body's record unchanged."""
    whole = downloaded_entry(TDMREP, Policy(), cut_fetched(tdmrep_file()), 1000.0)
    record = TDMREP.record_of(ORIGIN, replace(whole, truncated=False), 0, None, 0.0, "", 1000.0)
    assert b"truncated" not in record.encode()
    cut = replace(record, truncated=True).encode()
    assert b'"truncated": true' in cut
    wrong = cut.replace(b'"truncated": true', b'"truncated": "yes"')
    with pytest.raises(StoreCorrupt):
        SharedRecord.decode(wrong, TDMREP.store_name(ORIGIN))


def test_a_cut_rsl_license_is_unreadable_whatever_its_length() -> None:
    whole = RSL.read(LICENSE, False)
    assert whole.problem is None and len(whole.contents) == 2
    cut = RSL.read(LICENSE, True)  # cut right after its closing tag: still cut
    assert cut.problem == f"license document unreadable: cut short after {len(LICENSE):,} bytes"
    assert not cut.contents


def test_a_body_cut_at_500_kib_compresses_as_it_came() -> None:
    """The cut body is kept as it came (its snapshot hash and shared record)."""
    entry = downloaded_entry(TDMREP, Policy(), cut_fetched(CUT), 1000.0)
    assert zlib.decompress(entry.body_zlib) == CUT
