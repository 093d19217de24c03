"""The INFO lines every crawl with the add-on logs when the spider closes, report or not
(:func:`closing_lines`, from its stats): what a pause left for the resume, the items
dropped and the links not followed, by reason, and the setting that keeps them; the
requests not sent, by reason (docs/switching.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from rep_engine.records import REASONS, Action, Reason
from scrapy_rep.crawl.refusals import FILE_URLS_REFUSED

if TYPE_CHECKING:
    from rep_engine.settings import RepConfig

__all__ = ["closing_lines", "paused", "plural"]

#: Why an item was dropped (``item_refused``'s reason) in the closing lines (those denied
#: for a purpose are counted by purpose).
_ITEM_REASONS: Final[dict[str, str]] = {
    word: row.closing for word, row in REASONS.items() if row.refuses == {Action.KEEP}
}
#: The requests not sent because a site's documents said no, by the refusal's reason
#: (``rep/requests/dropped/…``; those denied for a purpose are counted by purpose).
_REQUEST_REASONS: Final[dict[str, str]] = {
    word: row.closing
    for word, row in REASONS.items()
    if row.refuses == {Action.FETCH} and row.closing
}
#: How the closing lines say the requests and items denied for a purpose.
_DENIED_FOR: Final = REASONS[Reason.PURPOSE].closing
#: The stats of the requests denied for a purpose (``…/<purpose>``): refused before their
#: fetch, an image of a ``noimageai`` page, an image URL an item of one carried (each a
#: request of the audit trail and the report).
_DENIED_REQUESTS: Final = tuple(
    name.split("{")[0]
    for name in (
        *REASONS[Reason.PURPOSE].counts[Action.FETCH],
        *REASONS[Reason.PURPOSE].counts[Action.FOLLOW],
        FILE_URLS_REFUSED,
    )
)


def plural(count: int, word: str) -> str:
    """``count`` ``word``'s, with thousands separators: ``1 item``, ``1,200 items``."""
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def paused(stats: Mapping[str, Any], reason: str, job_dir: str | None) -> str:
    """What a crawl closed before it finished with ``JOBDIR`` (paused: ``shutdown``; or
    ended early, ``closespider_pagecount``...) left for its resume, as Scrapy's queue,
    scrapy_rep's held requests and the URL ledger's open entries are kept then: the
    requests Scrapy's scheduler keeps and those scrapy_rep held; ``""`` for a finished
    crawl, or one without ``JOBDIR``."""
    if reason in ("finished", "") or not job_dir:
        return ""
    how = "paused (JOBDIR)" if reason == "shutdown" else f"ended ({reason}) with JOBDIR"
    held = int(stats.get("rep/requests/kept_for_resume", 0) or 0)
    scheduled = stats.get("rep/requests/scheduled_at_pause")
    if scheduled is None:  # another scheduler than Scrapy's: its count is not known
        return f"{how}: {plural(held, 'held request')} left, and the scheduler's"
    left = plural(held + int(scheduled), "request")
    return f"{how}: {left} left ({scheduled:,} scheduled, {held:,} held)"


def closing_lines(
    stats: Mapping[str, Any], config: RepConfig, reason: str = "finished", job_dir: str = ""
) -> list[str]:
    """The INFO lines of a crawl's end (from its stats): what a pause left, the items
    dropped and the links not followed, by reason, each with the setting that keeps them
    (docs/switching.md). The biggest differences from Scrapy's ``ROBOTSTXT_OBEY``, said
    where users read."""
    pause = paused(stats, reason, job_dir)
    lines = [f"scrapy_rep: {pause}; the same command resumes the crawl"] if pause else []
    lines += _items_dropped(stats)
    kept = sum(int(stats.get(f"rep/directives/items_kept/{r}", 0) or 0) for r in _ITEM_REASONS)
    if kept:
        lines.append(
            f"scrapy_rep: {plural(kept, 'item')} of noindex pages kept "
            f"(REP_NOINDEX_ACTION = {config.noindex_action!r})"
        )
    nofollow = int(stats.get("rep/directives/requests_dropped/nofollow", 0) or 0)
    rel = int(stats.get("rep/directives/requests_dropped/rel_nofollow", 0) or 0)
    if nofollow or rel:
        parts = [f"{nofollow:,} {REASONS[Reason.NOFOLLOW].closing}"] if nofollow else []
        parts += [f"{rel:,} {REASONS[Reason.REL_NOFOLLOW].closing}"] if rel else []
        keep = ["REP_NOFOLLOW_ACTION = 'keep'"] if nofollow else []
        keep += ["REP_REL_NOFOLLOW = False"] if rel else []
        lines.append(
            f"scrapy_rep: {plural(nofollow + rel, 'link')} not followed ({', '.join(parts)}); "
            f"{' and '.join(keep)} {'follows' if len(keep) == 1 else 'follow'} them"
        )
    return lines + _not_sent(stats, config)


def _items_dropped(stats: Mapping[str, Any]) -> list[str]:
    """The line of the items dropped, by reason (those denied for a purpose by purpose),
    and the settings that keep them; none when none was."""
    dropped = {
        reason: int(stats.get(f"rep/directives/items_dropped/{reason}", 0) or 0)
        for reason in _ITEM_REASONS
    }
    purposes = {
        key.rsplit("/", 1)[1]: int(value or 0)
        for key, value in stats.items()
        if key.startswith("rep/purpose/items_dropped/")
    }
    total = sum(dropped.values()) + sum(purposes.values())
    if total:
        parts = [f"{n:,} {_ITEM_REASONS[reason]}" for reason, n in dropped.items() if n]
        parts += [
            f"{n:,} {_DENIED_FOR.format(purpose=purpose)}"
            for purpose, n in sorted(purposes.items())
            if n
        ]
        keep = []
        if any(dropped.values()):
            keep.append("REP_NOINDEX_ACTION = 'keep' keeps those of noindex pages")
        if any(purposes.values()):
            keep.append("REP_PURPOSE_ACTION = 'mark' keeps those denied for a purpose, marked")
        return [
            f"scrapy_rep: {plural(total, 'item')} dropped ({', '.join(parts)}); {'; '.join(keep)}"
        ]
    return []


def _not_sent(stats: Mapping[str, Any], config: RepConfig) -> list[str]:
    """The requests robots.txt, an unreachable document or a purpose kept from being
    sent, by reason (as the report counts them: every request a purpose denied, the
    images of a ``noimageai`` page too): at INFO, so a crawl without the report says that
    a page was never fetched, and where to see which."""
    refused = {
        words: int(stats.get(f"rep/requests/dropped/{reason}", 0) or 0)
        for reason, words in _REQUEST_REASONS.items()
    }
    denied: Counter[str] = Counter()
    for key, value in stats.items():
        if key.startswith(_DENIED_REQUESTS):
            denied[key.rsplit("/", 1)[1]] += int(value or 0)
    refused |= {_DENIED_FOR.format(purpose=p): n for p, n in sorted(denied.items())}
    total = sum(refused.values())
    if not total:
        return []
    parts = ", ".join(f"{n:,} {words}" for words, n in refused.items() if n)
    them = "them" if total > 1 else "it"
    where = "the report" if config.report or config.report_file else "REP_REPORT = True"
    return [f"scrapy_rep: {plural(total, 'request')} not sent ({parts}); {where} names {them}"]
