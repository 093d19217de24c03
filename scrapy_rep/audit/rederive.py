"""Re-deriving a trail's decisions from its snapshots with today's engine (pure).

For each ``url`` line (schemas 1 and 2, ``docs/audit-trail.md``), :class:`Rederiver` parses the
robots.txt snapshot that decided it with the run's ``profile`` and asks the engine again
(:func:`scrapy_rep.robotstxt.parse_robotstxt`):

- a page recorded ``fetched``, ``redirected`` or ``failed`` must be allowed for the
  agent recorded and for every agent the run checked (``agents``);
- a page refused by ``robots.txt`` must be disallowed, and the deciding line must be the
  one recorded;
- the usage signals drawn from a snapshot (robots.txt ``Content-Usage`` /
  ``Content-Signal``, tdmrep.json) must still say what was recorded, and an explicit "no"
  for a purpose of the run means the page was refused before it was fetched
  (:meth:`scrapy_rep.verdict.policy.UsagePolicy.refuse_before`). A page's own signals (headers,
  meta) have no snapshot and are taken as recorded.

A snapshot's ``outcome`` says how the crawl read it: ``absent`` (no file, everything
allowed), ``unreachable`` (everything disallowed), ``gave-up`` (as
``REP_UNREACHABLE_ACTION`` of the run says; the crawl's own give-up verdict,
``unreachable for 600 s (…): requests dropped`` or ``…: treated as allowed``, by what it
says: :func:`scrapy_rep.fetch.lifecycle.shared.given_up_allowing`, the reader beside its
writer),
anything else by its HTTP status (SPEC §4: 2xx parsed, 4xx no file, 429 and 5xx
unreachable; no status: the body as stored, empty for no file).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Final

from scrapy_rep.audit.licenses import license_documents, page_license
from scrapy_rep.audit.lines import RefusedBy, iso_time
from scrapy_rep.audit.pages import (
    PageRun,
    page_differences,
    recorded_signal,
    said_key,
    says_something,
)
from scrapy_rep.audit.read import SnapshotStore, items, text
from scrapy_rep.fetch.cache import CacheEntry
from scrapy_rep.fetch.lifecycle.shared import given_up_allowing
from scrapy_rep.fetch.procedure import TDMREP, was_cut
from scrapy_rep.fetch.rules import Effect, effect_of_status
from scrapy_rep.robotstxt import ALLOW_ALL, DISALLOW_ALL, PROFILES, RobotsTxt, parse_robotstxt
from scrapy_rep.settings import RepConfig, overrides_of
from scrapy_rep.urls.origins import Origin, origin_of
from scrapy_rep.usage.purpose import PURPOSES, UsageSignal, content_signal_signal
from scrapy_rep.usage.rsl.document import ABSENT, parse_rsl
from scrapy_rep.usage.rsl.terms import license_url_of, owned_licenses, rsl_signals
from scrapy_rep.usage.tdmrep import NO_FILE, WELL_KNOWN_PATH, TdmRepFile, parse_tdmrep
from scrapy_rep.verdict import (
    LICENSE,
    ROBOTS,
    TDM,
    Allowed,
    Obey,
    Override,
    Reason,
    Refused,
    RequestFacts,
    RequestRules,
    Verdict,
    decide,
)
from scrapy_rep.verdict.policy import NOTHING_BEFORE, RESERVED_ALL, Before, UsagePolicy

#: Fates that mean the page was sent for: robots.txt allowed it.
SENT: Final = frozenset({"fetched", "redirected", "failed"})
#: ``refused_by`` values that a "no" of the usage signals explains.
USAGE_REFUSALS: Final = frozenset({RefusedBy.PURPOSE, RefusedBy.TDMREP_JSON})


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
    schema: int = 2
    #: ``REP_OVERRIDES`` of the run: the authorized overrides it crawled under.
    overrides: tuple[Override, ...] = ()
    #: What decides the run's fetched pages (its settings, the ``page`` parts it wrote).
    page: PageRun = field(default_factory=PageRun)
    #: The longest the run used a document version after fetching it, in seconds: its
    #: ``REP_CACHE_MAX_TTL`` fresh, then ``REP_CACHE_STALE_MAX`` stale (their defaults
    #: when its header does not give them; ``None``: not read from a header).
    longest_use: float | None = None

    @classmethod
    def of(cls, header: dict[str, Any]) -> RunContext:
        """From a ``run`` line; anything missing or odd keeps its default."""
        settings = header.get("settings")
        settings = settings if isinstance(settings, dict) else {}
        agents = header.get("agents")
        purposes = [p for p in items(header.get("purposes")) if text(p) in PURPOSES]
        profile = text(header.get("profile")) or text(settings.get("REP_PROFILE")) or "google"
        return cls(
            run=str(header.get("run", "")),
            profile=profile if profile in PROFILES else "google",
            agents=tuple(str(a) for a in agents) if isinstance(agents, list) else (),
            purposes=tuple(purposes) or ("search",),
            unknown=str(settings.get("REP_PURPOSE_UNKNOWN") or "allow"),
            unreachable_action=str(settings.get("REP_UNREACHABLE_ACTION") or "drop"),
            rsl_licenses=tuple(text(u) for u in items(settings.get("REP_RSL_LICENSES"))),
            rsl_max_licenses=_bound(settings.get("REP_RSL_MAX_LICENSES")),
            overrides=_overrides(settings.get("REP_OVERRIDES")),
            schema=header["schema"] if header.get("schema") in (1, 2) else 2,
            page=PageRun.of(header),
            longest_use=_longest_use(settings),
        )


def _longest_use(settings: dict[str, Any]) -> float:
    """``REP_CACHE_MAX_TTL + REP_CACHE_STALE_MAX`` of a run's settings
    (:func:`scrapy_rep.fetch.lifecycle.shared.downloaded_entry`). The crawl writes every
    ``REP_*`` setting in its header, each a number it checked: one missing or not a
    number (a header written by hand, or edited) counts as its default."""
    defaults = RepConfig.defaults()
    total = 0.0
    for name, default in (("REP_CACHE_MAX_TTL", defaults.cache_max_ttl),
                          ("REP_CACHE_STALE_MAX", defaults.cache_stale_max)):  # fmt: skip
        value = settings.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            total += float(value)
        else:
            total += default
    return total


def _bound(value: Any) -> int | None:
    """A run header's ``REP_RSL_MAX_LICENSES``: a whole number of at least 1, else none."""
    return value if type(value) is int and value >= 1 else None


def robots_effect(meta: dict[str, Any] | None, unreachable_action: str) -> Effect:
    """How the crawl read a robots.txt snapshot (see the module docstring)."""
    meta = meta or {}
    outcome = str(meta.get("outcome") or "parsed")
    if outcome == "absent":
        return Effect.ALLOW_ALL
    if outcome == "unreachable":
        return Effect.UNREACHABLE
    if outcome == "gave-up":
        return Effect.ALLOW_ALL if unreachable_action == "allow" else Effect.UNREACHABLE
    allowed = given_up_allowing(outcome)  # the lifecycle's give-up verdict, as written
    if allowed is not None:
        return Effect.ALLOW_ALL if allowed else Effect.UNREACHABLE
    status = meta.get("status")
    if outcome in ("parsed", "cut") or not isinstance(status, int):
        return Effect.PARSE
    effect = effect_of_status(status)
    return Effect.ALLOW_ALL if effect is Effect.FOLLOW else effect


def _answers(value: Any) -> tuple[bool | None, ...]:
    """A recorded signal's answers (``{"ai-train": false}``) in :data:`PURPOSES` order."""
    if isinstance(value, dict):
        return tuple(value.get(p) for p in PURPOSES)
    if isinstance(value, list) and len(value) == len(PURPOSES):
        return tuple(value)
    return (None,) * len(PURPOSES)


class Rederiver:
    """Re-derives the decisions of ``url`` lines, fed the trail's lines in order."""

    def __init__(self, store: SnapshotStore) -> None:
        self.store = store
        #: sha256 -> its (latest) ``snapshot`` line.
        self.snapshots: dict[str, dict[str, Any]] = {}
        #: (sha256, document URL) -> its latest ``snapshot`` line: the outcome of a body
        #: is the outcome at that URL (the empty body is every absent or unreachable file).
        self.described: dict[tuple[str, str], dict[str, Any]] = {}
        #: (kind, document URL) -> the sha256 of its latest snapshot line.
        self.latest: dict[tuple[str, str], str] = {}
        #: What each fetched page that said something said, in its run (:func:`said_key`):
        #: a page a callback fetched has its own record before its fetcher's.
        self.said: set[bytes] = set()
        #: The first 8 bytes of the SHA-256 of (run, sha256, document URL) of each
        #: ``snapshot`` line: a recheck's item names a snapshot its own run announced
        #: for its own origin (:meth:`announced`).
        self._announced: set[bytes] = set()
        #: The verdict of the last re-derivation (``None``: none made): an item's status
        #: is held against it.
        self.verdict: Verdict | None = None
        #: sha256 -> the robots.txt URLs its ``snapshot`` lines were fetched from: a
        #: record's robots.txt is its URL's site's, or the site its Host addressed.
        self.robots_urls: dict[str, set[str]] = {}
        #: (crawl, sha256) -> the robots.txt URLs the runs of that crawl (a run and the
        #: ``JOBDIR`` runs that resume it, :attr:`crawls`) announced it for: a schema 2
        #: record names a snapshot its own crawl announced, not another run's.
        self.crawl_robots_urls: dict[tuple[str, str], set[str]] = {}
        #: run id -> the first run of the crawl it belongs to (itself unless it resumes
        #: a run read before it): a resumed run carries on its paused run's open
        #: records, decided with the paused run's snapshots.
        self.crawls: dict[str, str] = {}

    def saw_snapshot(self, record: dict[str, Any]) -> None:
        sha, url = text(record.get("sha256")), text(record.get("url"))
        self._announced.add(_announce_key(text(record.get("run")), sha, url))
        self.snapshots[sha] = record
        self.described[(sha, url)] = record
        self.latest[(text(record.get("kind")), url)] = sha
        if text(record.get("kind")) == "robots.txt":
            self.robots_urls.setdefault(sha, set()).add(url)
            crawl = self.crawl_of(text(record.get("run")))
            self.crawl_robots_urls.setdefault((crawl, sha), set()).add(url)

    def crawl_of(self, run: str) -> str:
        """The first run of the crawl run ``run`` belongs to (:attr:`crawls`)."""
        return self.crawls.get(run, run)

    def meta(self, sha: str, document: str) -> dict[str, Any] | None:
        """The snapshot line of body ``sha`` fetched from ``document``, else any line of
        that body: a snapshot line is written once per body, and in schema v1 the empty
        body is always "absent" (a document given up on as unreachable has no snapshot)."""
        meta = self.described.get((sha, document))
        return meta if meta is not None else self.snapshots.get(sha)

    def differences(self, record: dict[str, Any], run: RunContext) -> list[str]:
        """Every way ``record`` differs from what its snapshots say today, and a fetched
        page's from what it said (sentences)."""
        found, before = self._request_differences(record, run)
        if record.get("fate") == "fetched":
            found += page_differences(
                record, run.page, held_to(record, run), before,
                self._page_licenses(record, run), self._page_part,
                lambda url, sub: said_key(run.run, url, sub) in self.said,
            )  # fmt: skip
            part = record.get("page")
            if says_something(part):
                self.said.add(said_key(run.run, str(record.get("url", "")), part))
        return found

    def announced(self, run: str, sha: str, document: str) -> bool:
        """Whether run ``run`` announced snapshot ``sha`` of ``document`` (its URL)."""
        return _announce_key(run, sha, document) in self._announced

    def _page_part(self, sha: str) -> dict[str, Any] | None:
        """A page part's statements, from their snapshot."""
        found = self.store.parsed(sha, "page", _json_object)
        return found if isinstance(found, dict) else None

    def _page_licenses(self, record: dict[str, Any], run: RunContext) -> tuple[UsageSignal, ...]:
        """The signals of the RSL licenses the page named, in the record's order: from
        their snapshots where they have one, else as recorded (an inline license, one
        given up on)."""
        robots = record.get("robots")
        sha = text(robots.get("snapshot")) if isinstance(robots, dict) else ""
        named = self._named_licenses(sha, record, run)
        url = str(record.get("url", ""))
        signals: list[UsageSignal] = []
        done: set[str] = set()
        for entry in _signals_of(record):
            if not page_license(entry, named):
                continue
            license_url, snapshot = (
                license_url_of(text(entry.get("source"))),
                text(entry.get("snapshot")),
            )
            if not snapshot:
                signals.append(recorded_signal(entry))
                continue
            if license_url in done:
                continue
            done.add(license_url)
            document = self.store.parsed(snapshot, "rsl", parse_rsl)
            if document is None:  # reported by the request's own check
                signals.append(recorded_signal(entry))
                continue
            owned = owned_licenses(run.rsl_licenses)
            signals.extend(rsl_signals(document, url, owned, license_url))
        return tuple(signals)

    def _named_licenses(self, sha: str, record: dict[str, Any], run: RunContext) -> tuple[str, ...]:
        """The ``License:`` URLs of the record's robots.txt snapshot."""
        if not sha:
            return ()
        url = str(record.get("url", ""))
        rules, _, _ = self._robots(sha, f"{origin_of(url) or ''}/robots.txt", run)
        return tuple(rules.licenses) if rules is not None else ()

    def _request_differences(
        self, record: dict[str, Any], run: RunContext, item: bool = False
    ) -> tuple[list[str], Before | None]:
        """Every way ``record`` differs from what its snapshots say today (sentences), and
        what its documents said about it before the fetch (``None``: not re-derived).
        ``item``: a recheck's ``item`` (:mod:`scrapy_rep.audit.items`), whose snapshots
        are its own run's, of its own origin, and whose ``tdmrep`` ``""`` is a
        tdmrep.json not had (read as the crawl reads one given up on)."""
        self.verdict = None
        url = str(record.get("url", ""))
        robots = record.get("robots")
        robots = robots if isinstance(robots, dict) else {}
        agent = str(robots.get("agent") or (run.agents[0] if run.agents else ""))
        # Every crawler name it was held to (the declared one first), when more than one.
        names = tuple(str(name) for name in items(robots.get("agents")))
        sha = text(robots.get("snapshot"))
        # Allow/Disallow not obeyed for it (ROBOTSTXT_OBEY = False, dont_obey_robotstxt):
        # only the AI-usage opt-outs of its snapshot (if one was read) decided.
        obeyed = robots.get("obeyed") is not False
        if not sha:
            return (self._without_snapshot(record, robots, url, run) if obeyed else []), None
        origin = text(robots.get("origin")) or str(origin_of(url) or "")
        if item and (problem := self._foreign(record, sha, origin, url)):
            return [problem], None
        also: tuple[RobotsTxt, Effect] | None = None
        if not item:
            sites, problem = self._sites(record, robots, sha, url, run)
            if problem:
                return [problem], None
            origin = sites[0]
            if len(sites) > 1:
                also_sha = text(robots.get("also"))
                rules, effect, problem = self._robots(also_sha, f"{sites[1]}/robots.txt", run)
                if rules is None:
                    return [f"robots.txt snapshot {also_sha[:12]}… {problem}"], None
                also = rules, effect
        rules, effect, problem = self._robots(sha, f"{origin}/robots.txt", run)
        if rules is None:
            return [f"robots.txt snapshot {sha[:12]}… {problem}"], None
        if also is not None:
            return self._rederived(
                record, robots, rules, effect, url, names[0] if len(names) > 1 else agent,
                origin, run, obeyed, names if len(names) > 1 else (), also=also,
            )  # fmt: skip
        if len(names) > 1:
            return self._rederived(
                record, robots, rules, effect, url, names[0], origin, run, obeyed, names, item
            )
        return self._rederived(
            record, robots, rules, effect, url, agent, origin, run, obeyed, item=item
        )

    def _sites(
        self, record: dict[str, Any], robots: dict[str, Any], sha: str, url: str, run: RunContext
    ) -> tuple[tuple[str, ...], str]:
        """The sites whose robots.txt decided a request (docs/audit-trail.md, ``robots``):
        the one its snapshot is of (its URL's origin, or the site its ``Host`` addressed,
        ``addressed``), then its URL's origin when ``also`` names that one's robots.txt
        too; or why they are not those a crawl could have named. A snapshot that no
        ``snapshot`` line describes is taken as the URL's origin's (said on its own). A
        schema 1 run wrote a body's line once (for the first site that served it), and
        named no site addressed: its records name the robots.txt of ``origin`` (which
        must be their URL's origin: a schema 1 crawl read no ``Host``), else of their
        URL's origin, as written. An ``also`` ``""`` (its URL's site's robots.txt
        given up on as unreachable) lets a request through only when the give-up verdict
        allows (``REP_UNREACHABLE_ACTION`` ``allow``): it disallows everything otherwise
        (SPEC §4). From schema 2 a run writes its own ``snapshot`` line for each body it
        uses: the snapshots a record names are ones its own crawl announced (its run, or
        the run a ``JOBDIR`` resume carries on), not another run's."""
        schema = run.schema
        own = str(origin_of(url) or "")
        addressed = text(robots.get("addressed"))
        named = text(robots.get("origin"))
        if schema < 2:  # no Host reading: only its URL's site's robots.txt decided it
            if named and str(origin_of(f"{named}/") or named) != own:
                return (), f"names the robots.txt of {named}, not of its URL's site {own}"
            return (named or own,), ""
        crawl = self.crawl_of(text(record.get("run")) or run.run)

        def announced(body: str) -> set[str]:  # what its own crawl announced it for
            return self.crawl_robots_urls.get((crawl, body), set())

        for body in (sha, text(robots.get("also"))):
            if body and body in self.robots_urls and not announced(body):
                return (), (f"names the robots.txt snapshot {body[:12]}…, which its run "
                            f"{crawl[:8]} did not announce (another run's)")  # fmt: skip
        fetched_from = announced(sha)
        sites = [site for site in (addressed, own) if site]
        if named and named not in sites:
            sites.insert(0, named)  # an earlier release wrote the URL's origin as "origin"
        of = [site for site in sites if f"{site}/robots.txt" in fetched_from]
        if fetched_from and not of:
            where = f"its URL's site {own}" + (f" nor of {addressed}, the site its Host "
                                               "addressed" if addressed else "")  # fmt: skip
            first = sorted(fetched_from)[0]
            return (), (f"names the robots.txt snapshot {sha[:12]}… of {first}, which is not "
                        f"that of {where}")  # fmt: skip
        if named and named not in (addressed, own):
            return (), f"names the robots.txt of {named}, not of its URL's site {own}"
        site = of[0] if of else named or own
        if "also" not in robots:
            if site == addressed != own and text(record.get("fate")) in SENT:
                return (), (f"sent with a Host addressing {addressed}, but names no "
                            f"robots.txt of its URL's site {own} (also), which decided it "
                            "too")  # fmt: skip
            return (site,), ""
        if not addressed or site != addressed:
            return (), ("names a second robots.txt (also), though it was decided by one "
                        "site's alone")  # fmt: skip
        also = text(robots.get("also"))
        if not also:  # its URL's site's robots.txt given up on: nothing was read
            fate = text(record.get("fate"))
            if fate in SENT and run.unreachable_action != "allow":
                return (), (f"recorded {fate}, but its URL's site's robots.txt ({own}, also) "
                            "was given up on as unreachable and the run's "
                            "REP_UNREACHABLE_ACTION is not 'allow'")  # fmt: skip
            return (site,), ""
        also_from = announced(also)
        if also and also_from and f"{own}/robots.txt" not in also_from:
            return (), (f"names as its URL's site's robots.txt (also) the snapshot "
                        f"{also[:12]}… of {sorted(also_from)[0]}, not of {own}")  # fmt: skip
        return (site, own), ""

    def _foreign(self, record: dict[str, Any], robots: str, origin: str, url: str) -> str:
        """Why an item's snapshots are not its own (``""``: they are): each it names
        (robots.txt, tdmrep.json, RSL licenses) announced by its own run for the document
        of its own origin, not another origin's or an older run's."""
        run = text(record.get("run"))
        own = str(origin_of(url) or "")
        if origin != own:
            return f"item names the robots.txt of {origin}, not of its own origin {own}"
        named = [("robots.txt", robots, f"{own}/robots.txt")]
        if tdm := text(record.get("tdmrep")):
            named.append(("tdmrep.json", tdm, f"{own}{WELL_KNOWN_PATH}"))
        checked = record.get("rsl")
        for license_url, sha in checked.items() if isinstance(checked, dict) else ():
            if text(sha):
                named.append(("RSL license", text(sha), text(license_url)))
        for kind, sha, document in named:
            if not self.announced(run, sha, document):
                return (f"item names {kind} snapshot {sha[:12]}…, which its run "
                        f"{run[:8]} did not announce for {document} (another origin's, "
                        "or another run's)")  # fmt: skip
        return ""

    def _rederived(
        self,
        record: dict[str, Any],
        robots: dict[str, Any],
        rules: RobotsTxt,
        effect: Effect,
        url: str,
        agent: str,
        origin: str,
        run: RunContext,
        obeyed: bool,
        names: tuple[str, ...] = (),
        item: bool = False,
        also: tuple[RobotsTxt, Effect] | None = None,
    ) -> tuple[list[str], Before | None]:
        """The record held against the crawl's own verdict (:func:`scrapy_rep.verdict.decide`)
        on its snapshots: robots.txt, tdmrep.json and the RSL licenses it names, for every
        crawler name it was held to (``names``, the declared one first; empty: ``agent``).
        ``also``: the URL's own origin's robots.txt, when the request was sent with a
        ``Host`` addressing ``origin`` and decided by both (its verdict is both's)."""
        usage = record.get("usage")
        signals = usage.get("signals") if isinstance(usage, dict) else None
        signals = [s for s in items(signals) if isinstance(s, dict)]
        request_rules = RequestRules.of(
            run.purposes, run.unknown, run.agents[1:], purpose_set=True, explain=True,
            rsl_licenses=run.rsl_licenses, overrides=run.overrides,
            max_licenses=run.rsl_max_licenses,
        )  # fmt: skip
        documents, problem = self._documents(record, signals, rules, url, origin, run, item)
        if problem:
            return [problem], None
        robots_entry = _entry(rules, effect is Effect.UNREACHABLE)
        documents[ROBOTS, None] = robots_entry
        own = origin_of(url)
        if also is not None:
            documents[ROBOTS, own] = _entry(also[0], also[1] is Effect.UNREACHABLE)

        def known(kind: str, key: Hashable) -> CacheEntry[Any] | None:
            if also is not None and kind == ROBOTS and key == own:
                return documents[ROBOTS, own]
            found = documents.get((kind, key if kind == LICENSE else None))
            return found if found is not None or kind != LICENSE else _entry(ABSENT)

        target = own or Origin("", "", None)
        served_by = None
        addressed = origin_of(f"{origin}/") if origin != str(own or "") else None
        if addressed is not None:  # sent with a Host addressing another site
            target, served_by = addressed, (own if also is not None else None)
        facts = RequestFacts(
            url, target, agent, Obey.ALL if obeyed else Obey.USAGE, names, served_by=served_by
        )
        # The trail does not say when a request was decided: one whose record says its
        # host's override had expired is decided after it, any other while it held
        # (a request it let through says so: _override_differences).
        expired = isinstance(robots.get("override_expired"), str)
        verdict = decide(facts, request_rules, known, _AFTER_ALL if expired else _BEFORE_ALL)
        self.verdict = verdict
        fate, by = text(record.get("fate")), RefusedBy.of(record.get("refused_by"))
        found: list[str] = []
        if obeyed:
            found += self._robots_differences(record, robots, verdict, url, agent, rules)
            found += _override_differences(robots, verdict)
        before = getattr(verdict, "before", NOTHING_BEFORE)
        derived = {signal.source: signal.answers for signal in before.every}
        for name in names or (agent,):  # trails of earlier releases: one signal, no line
            legacy = content_signal_signal(rules.content_signals(name))
            derived.setdefault(legacy.source, legacy.answers)
        for signal in signals if not _robots_refused(verdict) else ():
            if not signal.get("snapshot") or page_license(signal, rules.licenses):
                continue  # a page's own signal: taken as recorded
            source = str(signal.get("source", ""))
            if source not in derived:
                found.append(f"usage signal {source!r} is not in its snapshot")
            elif derived[source] != _answers(signal.get("answers")):
                found.append(f"usage signal {source!r} answers differently today")
        refused = verdict if isinstance(verdict, Refused) and fate in SENT else None
        if refused is not None and refused.reason is Reason.PURPOSE:
            found.append(f"recorded {fate}, but {refused.message.removeprefix('Not fetched: ')} "
                         "(before the fetch)")  # fmt: skip
        if refused is not None and refused.reason is Reason.TDMREP_UNREACHABLE:
            found.append(f"recorded {fate}, but {refused.message}")
        if isinstance(verdict, Allowed) and fate == "refused" and by in USAGE_REFUSALS:
            found.append(f"recorded refused by {by}, but its snapshots deny no purpose of the run")
        return found, before if isinstance(verdict, Allowed) else None

    def _documents(
        self,
        record: dict[str, Any],
        signals: list[dict[str, Any]],
        rules: RobotsTxt,
        url: str,
        origin: str,
        run: RunContext,
        item: bool = False,
    ) -> tuple[dict[tuple[str, Hashable], CacheEntry[Any]], str]:
        """The tdmrep.json (AI purposes) and RSL licenses the record was decided with, as
        entries, and a problem when a snapshot cannot be read."""
        documents: dict[tuple[str, Hashable], CacheEntry[Any]] = {}
        if UsagePolicy.of(run.purposes, run.unknown).needs_tdmrep:
            tdm, problem = self._tdmrep(record, signals, origin, run, item)
            if problem:
                return documents, problem
            documents[TDM, None] = _entry(
                NO_FILE if tdm is None else tdm, tdm is RESERVED_ALL, "given up on"
            )

        def absent(sha: str, document: str) -> bool:
            effect = robots_effect(self.meta(sha, document), run.unreachable_action)
            return effect is Effect.ALLOW_ALL

        checked = record.get("rsl")
        checked = (
            {text(k): text(v) for k, v in checked.items()} if isinstance(checked, dict) else {}
        )
        licenses, problem = license_documents(signals, self.store, rules.licenses, checked, absent)
        for license_url, document in licenses.items():
            documents[LICENSE, license_url] = _entry(document)
        return documents, problem

    @staticmethod
    def _without_snapshot(
        record: dict[str, Any], robots: dict[str, Any], url: str, run: RunContext
    ) -> list[str]:
        """A record no robots.txt body decided: nothing to re-derive, but a page sent for
        needs a reason: its origin's robots.txt was given up on as unreachable, the
        give-up verdict let its requests through, and the run's
        ``REP_UNREACHABLE_ACTION`` is ``allow`` (the writer records the verdict, "unreachable
        for … s (…): treated as allowed (REP_UNREACHABLE_ACTION)", in ``robots.why``)."""
        fate = text(record.get("fate"))
        if fate not in SENT or origin_of(url) is None:
            return []
        allowed = given_up_allowing(text(robots.get("why")))
        if allowed is None:
            return ["no robots.txt snapshot names what allowed it"]
        if not allowed:
            return [f"recorded {fate}, but its robots.txt was given up on as unreachable "
                    "and its requests dropped"]  # fmt: skip
        if run.unreachable_action != "allow":
            return [f"recorded {fate}, but its robots.txt was given up on as unreachable "
                    "and the run's REP_UNREACHABLE_ACTION is not 'allow'"]  # fmt: skip
        return []

    # ------------------------------------------------------------------ robots.txt

    def _robots(
        self, sha: str, document: str, run: RunContext
    ) -> tuple[RobotsTxt | None, Effect, str]:
        meta = self.meta(sha, document)
        effect = robots_effect(meta, run.unreachable_action)
        if effect is not Effect.PARSE:
            if not self.store.sound(sha):
                return None, effect, self.store.checked.get(sha, "unreadable")
            return (ALLOW_ALL if effect is Effect.ALLOW_ALL else DISALLOW_ALL), effect, ""
        # A cut one read as the crawl read it (docs/decisions.md, 'A cut robots.txt reads
        # no part of a line that could allow').
        cut = was_cut(str((meta or {}).get("detail") or ""))
        name = f"robots{' cut' if cut else ''}:{run.profile}"
        rules = self.store.parsed(sha, name, _robots_parser(run.profile, cut))
        if rules is None:
            return None, effect, self.store.checked.get(sha, "unreadable")
        return rules, effect, ""

    @staticmethod
    def _robots_differences(
        record: dict[str, Any],
        robots: dict[str, Any],
        verdict: Verdict,
        url: str,
        agent: str,
        rules: RobotsTxt,
    ) -> list[str]:
        """The recorded fate and deciding line held against robots.txt's part of the
        verdict (the crawler's own group, then those of ``REP_PURPOSE_AGENTS``)."""
        fate, by = text(record.get("fate")), RefusedBy.of(record.get("refused_by"))
        found = []
        if isinstance(verdict, Refused) and verdict.robots is not None and verdict.line:
            decision = verdict.robots
        elif (
            isinstance(verdict, (Allowed, Refused))
            and verdict.robots_agent
            and verdict.robots is not None
        ):
            decision = verdict.robots  # the line an override went past, of the sent-as name
        else:
            decision = rules.decide(url, agent)
        if fate in SENT and _robots_refused(verdict):
            assert isinstance(verdict, Refused) and verdict.robots is not None
            found.append(
                f"recorded {fate}, but robots.txt disallows it for {verdict.agent} "
                f"({verdict.robots.explanation})"
            )
        if fate == "refused" and by is RefusedBy.ROBOTS_TXT and not _robots_refused(verdict):
            found.append(
                f"recorded refused by robots.txt, but it allows it for {agent} "
                f"({decision.explanation})"
            )
        line = robots.get("line")
        if line != decision.line and (line is not None or fate != "unfinished"):
            said = f"line {line}" if line is not None else "no line"
            now = f"line {decision.line}" if decision.line is not None else "no line"
            found.append(
                f"recorded as decided by {said}, the snapshot gives {now} ({decision.explanation})"
            )
        return found

    def _tdmrep(
        self,
        record: dict[str, Any],
        signals: list[dict[str, Any]],
        origin: str,
        run: RunContext,
        item: bool = False,
    ) -> tuple[TdmRepFile | None, str]:
        """The tdmrep.json the record was decided with (AI purposes only): the one it names
        (``tdmrep``, schema 2: none named, none read; ``""``: given up on, taken as
        recorded), else the snapshot a signal names, else (schema 1) the latest one of the
        URL's origin (``None``: the run read none)."""
        sha = None
        for signal in signals:
            named = text(signal.get("snapshot"))
            if named and self.snapshots.get(named, {}).get("kind") == "tdmrep.json":
                sha = named
        document = f"{origin}{WELL_KNOWN_PATH}"
        if "tdmrep" in record:
            sha = text(record.get("tdmrep")) or None
            if item and sha is None:  # not had: given up on, as the run's setting reads it
                return (NO_FILE if run.unreachable_action == "allow" else RESERVED_ALL), ""
        elif sha is None and run.schema < 2:
            sha = self.latest.get(("tdmrep.json", document))
        if sha is None:
            return None, ""
        meta = self.meta(sha, document)
        if not self.store.sound(sha):
            return None, f"tdmrep.json snapshot {sha[:12]}… {self.store.checked.get(sha)}"
        effect = robots_effect(meta, run.unreachable_action)
        if effect is Effect.UNREACHABLE:
            return RESERVED_ALL, ""
        if effect is Effect.ALLOW_ALL:
            return NO_FILE, ""
        if was_cut(str((meta or {}).get("detail") or "")):  # read as the crawl read it
            return self.store.parsed(sha, "tdmrep cut", TDMREP.parse_cut), ""
        return self.store.parsed(sha, "tdmrep", parse_tdmrep), ""


#: The times a re-derivation decides at: after every override's expiry, before all.
_AFTER_ALL: Final = float("inf")
_BEFORE_ALL: Final = float("-inf")


def _announce_key(run: str, sha: str, document: str) -> bytes:
    return hashlib.sha256(f"{run}\n{sha}\n{document}".encode()).digest()[:8]


def _overrides(value: Any) -> tuple[Override, ...]:
    """A run header's ``REP_OVERRIDES`` (``[[host, reason, expires], …]``), read as the
    crawl reads it (:func:`scrapy_rep.settings.overrides_of`); anything odd counts as
    none, so a record that claims an override is then reported."""
    return tuple(overrides_of(items(value)))


def _override_differences(robots: dict[str, Any], verdict: Verdict) -> list[str]:
    """An override must be recorded where the run's ``REP_OVERRIDES`` let a request past
    robots.txt's Allow/Disallow (allowed, or refused by a later step), and only there."""
    recorded = text(robots.get("overridden"))
    override = verdict.overridden if isinstance(verdict, (Allowed, Refused)) else None
    if override is not None and not recorded:
        return ["robots.txt disallows it and the run's REP_OVERRIDES let it through, but "
                "the record does not say it was overridden"]  # fmt: skip
    if recorded and override is None:
        return [f"recorded as overridden ({recorded}), but no override of the run's "
                "REP_OVERRIDES covers it"]  # fmt: skip
    ends = text(robots.get("override_ends"))
    if override is not None and "override_ends" in robots and ends != iso_time(override.ends):
        return [f"recorded as let through by an override ending at {ends or 'no time'}, "
                f"but the run's REP_OVERRIDES ends it at {iso_time(override.ends)}"]  # fmt: skip
    expired = text(robots.get("override_expired"))
    if expired and not (isinstance(verdict, Refused) and verdict.expired is not None):
        return [f"recorded as past its override's expiry ({expired}), but no override of "
                "the run's REP_OVERRIDES covers it"]  # fmt: skip
    return []


def _robots_refused(verdict: Verdict) -> bool:
    """Whether robots.txt's Allow/Disallow refused it (for the crawler or a
    ``REP_PURPOSE_AGENTS`` token), or a robots.txt given up on."""
    return (
        isinstance(verdict, Refused)
        and verdict.document == ROBOTS
        and (verdict.reason is not Reason.PURPOSE)
    )


def _entry(rules: Any, unreachable: bool = False, outcome: str = "") -> CacheEntry[Any]:
    """A snapshot's document as the entry the crawl decided with."""
    never = float("inf")
    return CacheEntry(rules, outcome or "snapshot", 0.0, never, never, unreachable=unreachable)


def _robots_parser(profile: str, cut: bool = False) -> Any:
    def parse(body: bytes) -> RobotsTxt:
        return parse_robotstxt(body, profile)

    def parse_cut(body: bytes) -> RobotsTxt:
        return parse_robotstxt(body, profile, truncated=True)

    return parse_cut if cut else parse


def held_to(record: dict[str, Any], run: RunContext) -> tuple[str, ...]:
    """The crawler names a record's request was held to: its ``robots`` part's ``agents``
    (more than one), else its ``agent``, else the run's declared name."""
    robots = record.get("robots")
    robots = robots if isinstance(robots, dict) else {}
    names = tuple(text(name) for name in items(robots.get("agents")))
    if len(names) > 1:
        return names
    agent = text(robots.get("agent")) or (run.agents[0] if run.agents else "")
    return (agent,) if agent else ()


def _signals_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    usage = record.get("usage")
    signals = usage.get("signals") if isinstance(usage, dict) else None
    return [s for s in items(signals) if isinstance(s, dict)]


def _json_object(body: bytes) -> Any:
    """A page part's snapshot: a JSON object (anything else is unreadable)."""
    try:
        found = json.loads(body)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None
