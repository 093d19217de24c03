"""``REP_CACHE_MAX_BYTES`` counts what a parsed tdmrep.json or RSL license keeps (SPEC §4
"Caching"): a rule-heavy file keeps 6 to 17 bytes per body byte, and counting only its
body let a cache of such files hold several times its bound (3.8 MB kept, 0.6 MB
counted)."""

from __future__ import annotations

import gc
import json
import tracemalloc

import pytest

from rep_engine.fetch.cache import DocumentCache
from rep_engine.fetch.kinds import TDMREP
from rep_engine.fetch.lifecycle.shared import downloaded_entry
from rep_engine.fetch.procedure import Fetched, FetchProcedure
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.fetch.rules import Policy
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from rep_engine.usage.tdmrep import TdmRepFile, parse_tdmrep

MIB = 1024 * 1024


def rule_heavy(seed: int) -> bytes:
    """500 KiB of the shortest entries (over 11,000), distinct per ``seed``."""
    entries = [{"location": f"/{seed}/{n}", "tdm-reservation": n % 2} for n in range(12_000)]
    body = json.dumps(entries).encode()
    assert len(body) > MAX_BODY_BYTES
    return body


def cut_tdmrep_fetched(body: bytes) -> Fetched:
    step = FetchProcedure(TDMREP, "https://example.com" + TDMREP.path).on_response(200, body)
    assert isinstance(step, Fetched) and step.truncated
    return step


def test_the_estimate_is_what_a_rule_heavy_tdmrep_json_keeps() -> None:
    body = rule_heavy(0)[:MAX_BODY_BYTES]
    gc.collect()
    tracemalloc.start()
    try:
        tdm = parse_tdmrep(body, truncated=True)
        assert isinstance(tdm, TdmRepFile) and len(tdm) > 10_000
        assert tdm.lookup("https://example.com/0/1") is not None
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    estimate = TDMREP.size_of(tdm, body)
    assert kept > 6 * len(body)  # what made the body's size the wrong measure
    assert kept <= estimate <= 1.5 * kept


def test_the_cache_bound_holds_for_rule_heavy_tdmrep_json_files() -> None:
    bound = 16 * MIB
    gc.collect()
    tracemalloc.start()
    try:
        cache: DocumentCache[TdmRepFile] = DocumentCache(
            1000, bound, TDMREP.parse, TDMREP.parse_cut
        )
        for seed in range(8):
            cache.put(
                f"https://o{seed}.example",
                downloaded_entry(TDMREP, Policy(), cut_tdmrep_fetched(rule_heavy(seed)), 0.0),
            )
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(cache) == 8  # every file kept, parsed or compressed
    assert cache.bytes <= bound
    assert kept <= bound
    # The most recent is parsed and decides at once; the others parse again when asked.
    entry = cache.get("https://o0.example")
    assert entry is not None and entry.rules.lookup("https://o0.example/0/1") is not None


def rsl_heavy(content: str) -> bytes:
    """Just under 500 KiB of RSL ``<content>`` elements, each ``content`` with its number."""
    parts = ['<rsl xmlns="https://rslstandard.org/rsl">']
    size, n = len(parts[0]) + 6, 0
    while size + len(content) + 6 < MAX_BODY_BYTES:
        parts.append(content.format(n=n))
        size += len(parts[-1])
        n += 1
    return ("".join(parts) + "</rsl>").encode()


@pytest.mark.parametrize(
    "content",
    [
        '<content url="/{n}"/>',
        '<content url="/%a{n}/%b"/>',
        '<content url="/c{n}/*"><license><prohibits type="usage">ai-train</prohibits>'
        "</license></content>",
        '<content url="https://example.com/{n}"><license><permits type="usage">all'
        "</permits></license></content>",
    ],
    ids=["bare", "escaped", "prohibits", "full url"],
)
def test_the_estimate_is_what_a_rule_heavy_rsl_license_keeps(content: str) -> None:
    """The same holds for RSL licenses: 500 KiB of ``<content>`` keeps up to 16 bytes
    per body byte, and counting its body's size let the cache hold far beyond its bound."""
    body = rsl_heavy(content)
    assert len(body) < MAX_BODY_BYTES
    gc.collect()
    tracemalloc.start()
    try:
        document = RSL.parse(body)
        assert document.problem is None and len(document.contents) > 4_000
        document.matching("https://example.com/1")
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert kept > 6 * len(body)
    assert kept <= RSL.size_of(document, body) <= 1.7 * kept
