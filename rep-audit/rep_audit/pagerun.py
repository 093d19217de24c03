"""What a run's header says that its fetched pages' verdicts depend on (pure): the page
settings it was crawled under, read from its ``settings`` as the crawl read them, and
whether it wrote page parts (:class:`PageRun`), for :mod:`rep_audit.pages`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from rep_engine.directives import product_token
from rep_engine.records import text
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError
from rep_engine.settings.rules import page_rules
from rep_engine.trail.lines import WHOLE_PAGE_PARTS
from rep_engine.verdict.page import PageRules

#: The run's settings a page's verdict depends on (``settings.rules.page_rules``), the actions
#: on its items and ``REP_DIRECTIVE_TOKENS``: only these are read from its header, so that
#: a setting that was valid then and is not now (an override's expiry, past today) costs
#: no check.
PAGE_SETTINGS: Final = frozenset(
    {
        "REP_PURPOSE",
        "REP_PURPOSE_UNKNOWN",
        "REP_NOARCHIVE_MEANS_NO_AI_TRAIN",
        "REP_NOARCHIVE_MEANS_NO_AI_INPUT",
        "REP_NOCACHE_MEANS_NO_AI_TRAIN",
        "REP_NOSNIPPET_MEANS_NO_AI_INPUT",
        "REP_MEDIA_NOINDEX_MEANS_NO_AI",
        "REP_NOINDEX_ACTION",
        "REP_PURPOSE_ACTION",
        "REP_DIRECTIVE_TOKENS",
    }
)

#: A page setting added after runs were recorded without it: a header that lacks it is of
#: a crawl that did not have it, whose reading was this value (not today's default).
ADDED_SINCE: Final = {"REP_NOARCHIVE_MEANS_NO_AI_INPUT": False}


@dataclass(frozen=True)
class PageRun:
    """What a run's header says that its pages' verdicts depend on."""

    #: The settings that decide a page (``None``: not readable from the header, a
    #: hand-edited one: its pages are taken as recorded).
    rules: PageRules | None = None
    #: ``REP_NOINDEX_ACTION = "drop"`` and ``REP_PURPOSE_ACTION = "drop"``.
    noindex_drops: bool = True
    purpose_drops: bool = True
    #: ``REP_DIRECTIVE_TOKENS``, as product tokens.
    extra_tokens: tuple[str, ...] = ()
    #: The run's ``page_parts``: 0 none written, 1 written (long ones ``omitted``), 2
    #: written whole (a long one as a snapshot).
    parts: int = 0
    #: When the run started (its header's ``time``): no page of it was decided before.
    start: str = ""
    #: Why its settings could not be read (``""``: they could): a run that wrote page
    #: parts is never so (:meth:`problem`).
    unreadable: str = ""

    def problem(self, purposes: Sequence[str]) -> str:
        """What keeps this run's pages from being decided as its crawl decided them
        (``""``: nothing): its settings unreadable although it wrote page parts (a crawl
        writes the settings it read), or its ``REP_PURPOSE`` not the header's
        ``purposes`` (the request checks read those)."""
        if not self.parts:
            return ""
        if self.rules is None:
            return (f"its settings cannot be read ({self.unreadable}), though it wrote page "
                    "parts: its pages cannot be decided again")  # fmt: skip
        given = self.rules.policy.purposes
        if tuple(purposes) != tuple(given):
            return (f"its settings' REP_PURPOSE ({', '.join(given)}) is not its purposes "
                    f"({', '.join(purposes) or 'none'})")  # fmt: skip
        return ""

    @classmethod
    def of(cls, header: dict[str, Any]) -> PageRun:
        settings = header.get("settings")
        marked = header.get("page_parts")
        parts = 2 if marked == WHOLE_PAGE_PARTS else 1 if marked is True else 0
        start = text(header.get("time"))
        if not isinstance(settings, dict):
            return cls(parts=parts, start=start, unreadable="settings is no object")
        try:
            read = {k: v for k, v in settings.items() if k in PAGE_SETTINGS and v is not None}
            read = {**ADDED_SINCE, **read}
            config = RepConfig.from_settings(read)
        except (RepSettingError, TypeError, ValueError) as error:
            return cls(parts=parts, start=start, unreadable=str(error) or type(error).__name__)
        extra = tuple(t for t in (product_token(token) for token in config.directive_tokens) if t)
        return cls(
            page_rules(config),
            config.noindex_action == "drop",
            config.purpose_action == "drop",
            extra,
            parts,
            start,
        )
