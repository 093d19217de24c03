"""The counts per origin (a recheck's tally) in arrays, their names within a bound: the
summary's tables and each origin's counts are the same with a tiny bound (names in an
SQLite file) as with a large one, and a count outgrowing 4 bytes a place widens its
array."""

from __future__ import annotations

import random
from array import array

from rep_recheck.datasets import Item
from rep_recheck.outputs import Evidence, Tally, summary_markdown

_SAID = [
    ("kept", Evidence()),
    ("refused", Evidence(signal="robots.txt", reason="disallow")),
    ("refused", Evidence(signal="content-signal", reason="purpose", purpose="ai-train")),
    ("refused", Evidence(signal="tdmrep", reason="purpose", purpose="ai-train", agent="x")),
    ("unknown", Evidence(signal="unknown")),
]


def _filled(held: int, seed: int = 1) -> Tally:
    tally = Tally(("ai-train", "search"), held=held)
    rng = random.Random(seed)
    for number in range(3_000):
        origin = f"https://o{rng.randrange(300)}.example"
        # most origins mostly keep; some refuse by one signal, some by several
        weights = [8, 1, 1, 1, 1] if rng.random() < 0.7 else [1, 4, 2, 1, 1]
        status, said = rng.choices(_SAID, weights)[0]
        tally.add(Item(number, f"{origin}/{number}"), status, said, origin)
    return tally


def test_a_tiny_bound_counts_and_summarises_as_a_large_one() -> None:
    small, large = _filled(3), _filled(100_000)
    assert small.origins.names.spilled and not large.origins.names.spilled
    assert len(small.origins) == len(large.origins) == 300
    assert dict(small.origins.items()) == dict(large.origins.items())
    texts = ["\n".join(summary_markdown(t, "d", "WARC", "agent", False)) for t in (small, large)]
    assert texts[0] == texts[1]
    assert "### The origins that lost the most items" in texts[0]
    several = [c for c in large.origins.values() if len(c.signals) > 1]
    assert several and all(sum(c.signals.values()) == c.refused + c.unknown for c in several)
    small.close()


def test_the_origins_that_lost_the_most_are_taken_by_count_then_by_name() -> None:
    tally = Tally(("search",), held=2)
    refused = Evidence(signal="robots.txt", reason="disallow")
    for number, name in enumerate("zyxwvutsrqponm"):
        origin = f"https://{name}.example"
        tally.add(Item(number, origin), "refused", refused, origin)
    tally.add(Item(99, "https://z.example/2"), "refused", refused, "https://z.example")
    rows = tally.origins.losing(10)
    assert [(removed, name) for removed, name, _ in rows] == [
        (2, "https://z.example"),
        *((1, f"https://{name}.example") for name in "mnopqrstu"),
    ]
    assert Tally(("search",)).origins.losing(10) == []


def test_a_count_outgrowing_four_bytes_widens_its_array() -> None:
    tally = Tally(("search",))
    tally.add(Item(1, "https://a.example/"), "kept", Evidence(), "https://a.example")
    kept = tally.origins.counts["kept"]
    kept[0] = 2**32 - 1
    tally.add(Item(2, "https://a.example/"), "kept", Evidence(), "https://a.example")
    assert tally.origins["https://a.example"].kept == 2**32
    assert tally.origins.counts["kept"].typecode == "Q" and kept.typecode == "I"
    assert isinstance(tally.origins.counts["kept"], array)


def test_an_origins_signals_are_counted_in_the_order_first_met() -> None:
    """One signal, two (in arrays) and three or more (a dict): the counts and the one
    that removed most (a tie: the first met), as a counter of every signal says them."""
    from collections import Counter

    tally = Tally(("ai-train",))
    said = {name: Evidence(signal=name, reason="purpose", purpose="ai-train")
            for name in ("aipref", "tdmrep", "rsl")}  # fmt: skip
    plan = {
        "https://one.example": ["aipref", "aipref"],
        "https://two.example": ["tdmrep", "aipref", "aipref", "tdmrep", "aipref"],
        "https://tie.example": ["aipref", "tdmrep"],
        "https://three.example": ["aipref", "tdmrep", "aipref", "unknown", "tdmrep", "rsl"],
    }
    for origin, signals in plan.items():
        for number, signal in enumerate(signals):
            status = "unknown" if signal == "unknown" else "refused"
            evidence = Evidence(signal="unknown") if signal == "unknown" else said[signal]
            tally.add(Item(number, origin), status, evidence, origin)
    per = tally.origins
    for origin, signals in plan.items():
        expected = Counter(signals)
        assert per[origin].signals == expected
        assert list(per[origin].signals) == list(dict.fromkeys(signals))
        number = per.names.find(origin)
        assert number is not None
        assert per.most_by(number) == expected.most_common(1)[0][0]
    assert per.most_by(per.names.number("https://tie.example")) == "aipref"
    assert list(per.more_signals) == [per.names.find("https://three.example")]
