"""The page fetch's pacing and lines (:mod:`rep_recheck.pacing`): pages in turns
by origin, a place in the crawl's concurrency for each origin, the progress line."""

from __future__ import annotations

from rep_recheck.pacing import (
    MOST_AT_ONCE,
    interleave,
    page_settings,
    pages_progress,
)


def test_pages_come_in_turns_one_per_origin_each_origins_in_order() -> None:
    slow = [f"https://slow.example/{n}" for n in range(4)]
    fast = ["https://fast.example/a", "https://fast.example/b"]
    assert interleave([*slow, *fast, "not a url"]) == [
        slow[0], fast[0], "not a url", slow[1], fast[1], slow[2], slow[3],
    ]  # fmt: skip
    assert interleave([]) == []


def test_every_origin_has_a_place_beyond_the_given_concurrency_never_below_it() -> None:
    assert page_settings({}, 100)["CONCURRENT_REQUESTS"] == 116
    assert page_settings({"CONCURRENT_REQUESTS": 64}, 3)["CONCURRENT_REQUESTS"] == 67
    assert page_settings({}, 10**6)["CONCURRENT_REQUESTS"] == MOST_AT_ONCE
    assert page_settings({"CONCURRENT_REQUESTS": 5000}, 10)["CONCURRENT_REQUESTS"] == 5000
    queue = page_settings({}, 1)["SCHEDULER_PRIORITY_QUEUE"]
    assert queue == "scrapy.pqueues.DownloaderAwarePriorityQueue"


def test_the_pages_progress_line_names_counts_and_the_origins_waited_on() -> None:
    assert pages_progress(7, 7, {"https://a.example": 0}) == "recheck: fetching pages: 7 of 7 done"
    left = {"https://a.example": 1, "https://b.example": 30, "https://c.example": 2,
            "https://d.example": 2, "https://e.example": 0}  # fmt: skip
    assert pages_progress(1_000, 1_035, left) == (
        "recheck: fetching pages: 1,000 of 1,035 done; waiting on 4 origin(s): "
        "https://b.example (30), https://c.example (2), https://d.example (2) and 1 more"
    )


def test_a_page_of_a_host_the_project_configures_is_in_scrapys_slot() -> None:
    """A host with a ``DOWNLOAD_SLOTS`` entry: its pages go through Scrapy's slot of the
    host, whose delay and concurrency are the project's; another host's page in its
    origin's own slot (two ports, two slots)."""
    from rep_recheck.pacing import page_slot

    slots = {"a.example": {"delay": 5.0}}
    assert page_slot("https://a.example:8443/p", slots) == ""
    assert page_slot("https://b.example:8443/p", slots) == "https://b.example:8443"
    assert page_slot("not a url", slots) == ""
