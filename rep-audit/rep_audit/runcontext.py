"""What a run's header (and its ``setting`` lines) says that its records' decisions depend
on (:class:`RunContext`), and the crawler names a record's request was held to (pure).

Its fetched pages' verdicts depend on the page settings it was crawled under, read from
its ``settings`` as the crawl read them, and on whether it wrote page parts
(:class:`PageRun`, for :mod:`rep_audit.pages`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from rep_engine.directives import product_token
from rep_engine.records import DOCUMENTS_FETCHED, RobotsPart, items, mapping, text
from rep_engine.robotstxt.profiles import PROFILES
from rep_engine.robotstxt.useragent import crawler_name
from rep_engine.settings import NO_SUCH_SETTING, STEERING, RepConfig
from rep_engine.settings.readers import RepSettingError
from rep_engine.settings.rules import overrides_of, page_rules
from rep_engine.trail.lines import SITE_SETTINGS, WHOLE_PAGE_PARTS
from rep_engine.usage.purpose import PURPOSES
from rep_engine.verdict.decide import Override
from rep_engine.verdict.page import PageRules

#: The ``robots`` part of a record that has none, read as one that says nothing.
NO_ROBOTS: Final = RobotsPart.from_part({})
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


@dataclass(frozen=True)
class RunContext:
    """What a run's header says that a decision depends on."""

    run: str = ""
    profile: str = "google"
    agents: tuple[str, ...] = ()
    purposes: tuple[str, ...] = ("search",)
    unknown: str = "allow"
    unreachable_action: str = "drop"
    rsl_licenses: tuple[str, ...] = ()
    #: ``REP_RSL_MAX_LICENSES`` of the run (``None``: a run from before the setting, which
    #: read every license).
    rsl_max_licenses: int | None = None
    #: The run's schema: from 2 on, a record names every document version it was decided
    #: with (``tdmrep``, ``rsl``); schema 1 named a tdmrep.json only through a signal.
    #: From 2 a record's line is held to its text (``rule``) and a refusal's ``why`` to its
    #: verdict's sentence, as the crawl has written them since (a schema 1 trail's are
    #: taken as written).
    schema: int = 2
    #: ``REP_OVERRIDES`` of the run: the authorized overrides it crawled under.
    overrides: tuple[Override, ...] = ()
    #: What decides the run's fetched pages (its settings, the ``page`` parts it wrote).
    page: PageRun = field(default_factory=PageRun)
    #: The longest the run used a document version after fetching it, in seconds: its
    #: ``REP_CACHE_MAX_TTL`` fresh, then ``REP_CACHE_STALE_MAX`` stale (their defaults
    #: when its header does not give them; ``None``: not read from a header).
    longest_use: float | None = None
    #: The shortest a version the run fetched stayed usable: its shortest freshness
    #: (``REP_CACHE_TTL``, ``REP_CACHE_MIN_TTL``, ``REP_CACHE_MAX_TTL``), then
    #: ``REP_CACHE_STALE_MAX`` stale: a version fetched less long before was had then
    #: (unless let go for room, ``REP_CACHE_MAX_ORIGINS``).
    shortest_use: float = math.inf
    #: A recheck's run that fetched each item's page again (its header's
    #: ``recheck.pages``, with its documents ``fetched``: a recheck of a WARC fetches no
    #: page): only its items may be unknown for a page not fetched again.
    recheck_pages: bool = False
    #: A recheck's shards, in the order read (its header's ``recheck.shards``; none: one
    #: file): its items name them, and only them.
    recheck_shards: tuple[str, ...] = ()
    #: The kinds of document a recheck's run declared it did not consult (its header's
    #: ``recheck.not_consulted``: ``--consult``): its items name them, and none of them.
    recheck_not_consulted: tuple[str, ...] = ()

    @classmethod
    def of(cls, header: dict[str, Any]) -> RunContext:
        """From a ``run`` line; anything missing or odd keeps its default."""
        settings = mapping(header.get("settings"))
        purposes = [p for p in items(header.get("purposes")) if text(p) in PURPOSES]
        profile = text(header.get("profile")) or text(settings.get("REP_PROFILE")) or "google"
        return cls(
            run=str(header.get("run", "")),
            profile=profile if profile in PROFILES else "google",
            agents=tuple(str(a) for a in items(header.get("agents"))),
            purposes=tuple(purposes) or ("search",),
            unknown=str(settings.get("REP_PURPOSE_UNKNOWN") or "allow"),
            unreachable_action=str(settings.get("REP_UNREACHABLE_ACTION") or "drop"),
            rsl_licenses=tuple(text(u) for u in items(settings.get("REP_RSL_LICENSES"))),
            rsl_max_licenses=_bound(settings.get("REP_RSL_MAX_LICENSES")),
            overrides=run_overrides(settings.get("REP_OVERRIDES")),
            schema=header["schema"] if header.get("schema") in (1, 2, 3) else 2,
            page=PageRun.of(header),
            longest_use=_longest_use(settings),
            shortest_use=_shortest_use(settings),
            recheck_pages=_recheck_pages(mapping(header.get("recheck"))),
            recheck_shards=tuple(
                text(shard) for shard in items(mapping(header.get("recheck")).get("shards"))
            ),
            recheck_not_consulted=tuple(
                text(kind) for kind in items(mapping(header.get("recheck")).get("not_consulted"))
            ),
        )


def _recheck_pages(about: dict[str, Any]) -> bool:
    """Whether a recheck's header (its ``recheck``) says it fetched each page again:
    ``pages``, with the documents fetched then (``--pages`` is refused with a WARC)."""
    return about.get("pages") is True and about.get("documents") == DOCUMENTS_FETCHED


def _longest_use(settings: dict[str, Any]) -> float:
    """``REP_CACHE_MAX_TTL + REP_CACHE_STALE_MAX`` of a run's settings
    (:func:`rep_engine.fetch.lifecycle.shared.downloaded_entry`). The crawl writes every
    ``REP_*`` setting in its header, each a number it checked: one missing or not a
    number (a header written by hand, or edited) counts as its default."""
    defaults = RepConfig.defaults()
    return _seconds(settings, "REP_CACHE_MAX_TTL", defaults.cache_max_ttl) + _seconds(
        settings, "REP_CACHE_STALE_MAX", defaults.cache_stale_max
    )


def _shortest_use(settings: dict[str, Any]) -> float:
    """The shortest freshness a run's settings give a version
    (:func:`rep_engine.fetch.rules.cache_lifetime`), then ``REP_CACHE_STALE_MAX`` (as
    :func:`_longest_use` reads them)."""
    defaults = RepConfig.defaults()
    fresh = min(_seconds(settings, "REP_CACHE_TTL", defaults.cache_ttl),
                _seconds(settings, "REP_CACHE_MIN_TTL", defaults.cache_min_ttl),
                _seconds(settings, "REP_CACHE_MAX_TTL", defaults.cache_max_ttl))  # fmt: skip
    return fresh + _seconds(settings, "REP_CACHE_STALE_MAX", defaults.cache_stale_max)


def _seconds(settings: dict[str, Any], name: str, default: float) -> float:
    """A run's setting ``name``, a number of seconds (not one: its default)."""
    value = settings.get(name)
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return default


def _bound(value: Any) -> int | None:
    """A run header's ``REP_RSL_MAX_LICENSES``: a whole number of at least 1, else none."""
    return value if type(value) is int and value >= 1 else None


def run_overrides(value: Any) -> tuple[Override, ...]:
    """A run header's ``REP_OVERRIDES`` (``[[host, reason, expires], …]``), read as the
    crawl reads it (:func:`rep_engine.settings.rules.overrides_of`); anything odd counts as
    none, so a record that claims an override is then reported."""
    return tuple(overrides_of(items(value)))


def steering(header: dict[str, Any]) -> str:
    """How the run of ``header`` could be steered from outside as it ran: each setting of
    :data:`~rep_engine.settings.STEERING` its header says was on (or does not record:
    written before it was), in words (docs/publishers.md); ``""``: each was off."""
    settings = mapping(header.get("settings"))
    said = [f"{name} {'on' if settings[name] is True else repr(settings[name])}"
            if name in settings else f"{name} not recorded" for name in STEERING
            if settings.get(name, True) not in (False, NO_SUCH_SETTING)]  # fmt: skip
    if not said:
        return ""
    return (f"run {text(header.get('run'))[:8]}: {', '.join(said)}: a local client may have "
            "run code inside the crawl as it ran (Scrapy's RemoteControl, its telnet "
            "console), so its records cannot show that nobody changed what it obeyed or "
            "recorded")  # fmt: skip


def fold_setting(header: dict[str, Any], line: dict[str, Any]) -> None:
    """A ``setting`` line's entry put back into its run's ``header``, in the list the header
    held before schema 3 (which holds its count), for :meth:`RunContext.of`."""
    name, settings = text(line.get("name")), header.get("settings")
    if name in SITE_SETTINGS and isinstance(settings, dict):
        listed = settings.get(name)
        settings[name] = [*(listed if isinstance(listed, list) else ()), line.get("entry")]


def agents_problem(header: dict[str, Any]) -> str:
    """Why a run header's ``agents``, the names ``verify`` decides its records for
    (:func:`declared_agent`), are not those its header's settings give (``""``: they are,
    or it gives none): its crawler's name read from ``ROBOTSTXT_USER_AGENT``, else its
    ``user_agent`` (``rep_engine.trail.lines.run_line``), then its ``REP_PURPOSE_AGENTS``
    (listed with each preset's names in place) and the names of each preset it names
    (``agent_presets``). A name left out of one copy lets through what its group refused."""
    agents, settings = (
        [text(a) for a in items(header.get("agents"))],
        mapping(header.get("settings")),
    )
    said = text(settings.get("ROBOTSTXT_USER_AGENT")) or header.get("user_agent")
    found = []
    if isinstance(said, str) and agents[:1] != [crawler_name(said)]:
        found.append(f"its crawler's name is {crawler_name(said)!r} (its User-Agent "
                     f"settings), not its first agent {(agents or [''])[0]!r}")  # fmt: skip
    listed = settings.get("REP_PURPOSE_AGENTS")
    if isinstance(listed, list) and agents[1:] != listed:
        found.append(
            f"its REP_PURPOSE_AGENTS are {', '.join(map(str, listed)) or 'none'}, "
            f"not its agents after the first ({', '.join(agents[1:]) or 'none'})"
        )
    for preset in items(header.get("agent_presets")):
        left_out = [n for n in items(mapping(preset).get("names")) if n not in agents[1:]]
        if left_out:
            found.append(
                f"its preset {text(mapping(preset).get('name'))!r} names "
                f"{', '.join(map(str, left_out))}, which its agents do not"
            )
    if not found:
        return ""
    return (
        f"{'; '.join(found)}: its records are decided again for its agents, which the "
        "crawl did not decide them for"
    )


def held_to(robots: RobotsPart | None, run: RunContext) -> tuple[str, ...]:
    """The crawler names a record's request was held to: its ``robots`` part's ``agents``
    (more than one), else its ``agent``, else the run's declared name."""
    robots = robots or NO_ROBOTS
    if len(robots.agents) > 1:
        return robots.agents
    agent = robots.agent or (run.agents[0] if run.agents else "")
    return (agent,) if agent else ()


def declared_agent(robots: RobotsPart | None, run: RunContext, item: bool = False) -> str:
    """The name a record's request was decided for (the crawl's ``RequestFacts.agent``):
    its run's crawler name (its header's first ``agents``), whichever name the record
    says decided it (a ``REP_PURPOSE_AGENTS`` token, the name it was sent as: that one is
    held against the verdict, not taken from the record). A run whose crawler has no name
    holds each request to the name it is sent as: the record's first name held to, else
    its agent; a recheck's ``item`` was sent as nothing, and is decided for the run's
    name even when it has none (``-A "(https://…)"``: the ``*`` group, and a
    ``REP_PURPOSE_AGENTS`` token that refused it named as one)."""
    if run.agents and (run.agents[0] or item):
        return run.agents[0]
    robots = robots or NO_ROBOTS
    return robots.agents[0] if robots.agents else robots.agent
