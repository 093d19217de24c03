"""Re-deriving a trail's decisions from its snapshots with today's engine (pure).

For each ``url`` line (schemas 1 and 2, ``docs/audit-trail.md``), :class:`Rederiver`
parses the robots.txt snapshot that decided it with the run's ``profile`` and asks the
engine again (:func:`rep_engine.robotstxt.parse_robotstxt`):

- a page recorded ``fetched``, ``redirected`` or ``failed`` must be allowed for the
  agent recorded and for every agent the run checked (``agents``);
- a page refused by ``robots.txt`` must be disallowed, and the deciding line must be the
  one recorded;
- the usage signals drawn from a snapshot (robots.txt ``Content-Usage`` /
  ``Content-Signal``, tdmrep.json) must still say what was recorded, and an explicit "no"
  for a purpose of the run means the page was refused before it was fetched
  (:meth:`rep_engine.verdict.policy.UsagePolicy.refuse_before`). A page's own signals (headers,
  meta) have no snapshot and are taken as recorded;
- a page a downloader middleware answered before the verdict (``answered``) was not
  sent: it is held to what the crawl writes of one, and the "no" its crawl's robots.txt
  says of it is an event (:attr:`Rederiver.events`).

How a snapshot is read: :mod:`rep_audit.documents`. Here besides: the sites whose
robots.txt decided a record's request (:func:`sites_of`: what each snapshot it names was
announced for, by whom), and the snapshots a recheck's item names held to its own run and
origin (:func:`foreign`); the request decided again by the crawl's own decision
(:func:`decided`, :func:`rep_engine.verdict.decide.decide`) on the documents it was
decided with, and that verdict held against what the record says: its fate, robots.txt's
deciding line, its override, its usage signals (:func:`held_against`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable
from typing import Any, Final

from rep_audit.documents import Documents, page_license, snapshot_entry
from rep_audit.pages import (
    page_differences,
    recorded_signal,
    recorded_signals,
    said_key,
    says_something,
)
from rep_audit.runcontext import RunContext, held_to
from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.lifecycle.shared import given_up_allowing
from rep_engine.fetch.rules import Effect
from rep_engine.records import (
    SENT_FATES,
    USAGE_REFUSALS,
    Reason,
    RefusedBy,
    iso_time,
    items,
    mapping,
    text,
    whole,
)
from rep_engine.robotstxt import ALLOW_ALL, RobotsTxt
from rep_engine.trail.read import SnapshotStore
from rep_engine.urls.origins import Origin, origin_of
from rep_engine.usage.purpose import PURPOSES, UsageSignal, content_signal_signal
from rep_engine.usage.rsl.document import ABSENT, parse_rsl
from rep_engine.usage.rsl.terms import license_url_of, owned_licenses, rsl_signals
from rep_engine.usage.tdmrep import WELL_KNOWN_PATH
from rep_engine.verdict.decide import (
    LICENSE,
    ROBOTS,
    TDM,
    Allowed,
    Obey,
    Refused,
    RequestFacts,
    RequestRules,
    Verdict,
    decide,
)
from rep_engine.verdict.policy import NOTHING_BEFORE, Before


class Rederiver(Documents):
    """Re-derives the decisions of ``url`` lines, fed the trail's lines in order."""

    def __init__(self, store: SnapshotStore) -> None:
        super().__init__(store)
        #: What each fetched page that said something said, in its run (:func:`said_key`):
        #: a page a callback fetched has its own record before its fetcher's.
        self.said: set[bytes] = set()
        #: What its origin's documents say of each page a downloader middleware before
        #: scrapy_rep's answered, re-derived, by (run, URL): a page a callback fetched so
        #: drops its fetcher's items for its origin's "no" as its own record does.
        self.answered: dict[tuple[str, str], Before] = {}
        #: The verdict of the last re-derivation (``None``: none made): an item's status
        #: is held against it.
        self.verdict: Verdict | None = None
        #: What the last record re-derived showed that is no problem but is said (the
        #: "no" of a response answered before the verdict: ``audit verify``'s events).
        self.events: list[str] = []

    def differences(self, record: dict[str, Any], run: RunContext) -> list[str]:
        """Every way ``record`` differs from what its snapshots say today, and a fetched
        page's from what it said (sentences); :attr:`events`, what it showed besides."""
        self.events = []
        if "answered" in record:  # no download, no verdict: what robots.txt said of it
            found, before = self._answered_differences(record, run)
        else:
            found, before = self._request_differences(record, run)
        if record.get("fate") == "fetched":
            found += page_differences(
                record, run.page, held_to(record, run), before,
                self._page_licenses(record, run), self.page_part,
                lambda url, sub: said_key(run.run, url, sub) in self.said,
                lambda url: self.answered.get((run.run, url)),
            )  # fmt: skip
            part, url = record.get("page"), str(record.get("url", ""))
            if "answered" in record and before is not None and isinstance(part, dict):
                self.answered[run.run, url] = before  # its part may say nothing: its origin did
                self.said.add(said_key(run.run, url, part))
            elif says_something(part):
                self.said.add(said_key(run.run, url, part))
        return found

    def _page_licenses(self, record: dict[str, Any], run: RunContext) -> tuple[UsageSignal, ...]:
        """The signals of the RSL licenses the page named, in the record's order: from
        their snapshots where they have one, else as recorded (an inline license, one
        given up on)."""
        sha = text(mapping(record.get("robots")).get("snapshot"))
        named = self._named_licenses(sha, record, run)
        url = str(record.get("url", ""))
        signals: list[UsageSignal] = []
        done: set[str] = set()
        for entry in recorded_signals(record):
            license_url = license_url_of(text(entry.get("source")))
            snapshot = text(entry.get("snapshot"))
            if not page_license(entry, named) or (snapshot and license_url in done):
                continue
            document = None
            if snapshot:
                done.add(license_url)
                document = self.store.parsed(snapshot, "rsl", parse_rsl)
            if document is None:  # none read, or unreadable: reported by the request's check
                signals.append(recorded_signal(entry))
            else:
                signals.extend(
                    rsl_signals(document, url, owned_licenses(run.rsl_licenses), license_url)
                )
        return tuple(signals)

    def _named_licenses(self, sha: str, record: dict[str, Any], run: RunContext) -> tuple[str, ...]:
        """The ``License:`` URLs of the record's robots.txt snapshot."""
        if not sha:
            return ()
        url = str(record.get("url", ""))
        rules, _, _ = self.robots(sha, f"{origin_of(url) or ''}/robots.txt", run)
        return tuple(rules.licenses) if rules is not None else ()

    def _request_differences(
        self, record: dict[str, Any], run: RunContext, item: bool = False
    ) -> tuple[list[str], Before | None]:
        """Every way ``record`` differs from what its snapshots say today (sentences), and
        what its documents said about it before the fetch (``None``: not re-derived).
        ``item``: a recheck's ``item`` (:mod:`rep_audit.items`), whose snapshots
        are its own run's, of its own origin, and whose ``tdmrep`` ``""`` is a
        tdmrep.json not had (read as the crawl reads one given up on)."""
        self.verdict = None
        url = str(record.get("url", ""))
        robots = mapping(record.get("robots"))
        agent = str(robots.get("agent") or (run.agents[0] if run.agents else ""))
        # Every crawler name it was held to (the declared one first), when more than one.
        names = tuple(str(name) for name in items(robots.get("agents")))
        sha = text(robots.get("snapshot"))
        # Allow/Disallow not obeyed for it (ROBOTSTXT_OBEY = False, dont_obey_robotstxt):
        # only the AI-usage opt-outs of its snapshot (if one was read) decided.
        obeyed = robots.get("obeyed") is not False
        without: list[str] = []
        if not sha:
            without = self._without_snapshot(record, robots, url, run) if obeyed else []
            # An item whose robots.txt was not had and whose tdmrep.json was: that one may
            # refuse it all the same, robots.txt read as none (as the recheck reads it: a
            # "no" had is not lost to a robots.txt given up on).
            if not (item and text(record.get("tdmrep"))):
                return without, None
        origin = text(robots.get("origin")) or str(origin_of(url) or "")
        if item and (problem := foreign(self, record, sha, origin, url)):
            return [problem], None
        also: tuple[RobotsTxt, Effect] | None = None
        if not item:
            origin, also, problem = self._sites(record, robots, sha, url, run)
            if problem:
                return [problem], None
        rules, effect, problem = (
            self.robots(sha, f"{origin}/robots.txt", run)
            if sha
            else (ALLOW_ALL, Effect.ALLOW_ALL, "")
        )
        if rules is None:
            return [f"robots.txt snapshot {sha[:12]}… {problem}"], None
        # Held against the crawl's own verdict on its snapshots (requestcheck's decided), for
        # every name it was held to (the declared one first; none: ``agent``).
        held = names if len(names) > 1 else ()
        agent = held[0] if held else agent
        signals = recorded_signals(record)
        documents, problem = self.documents(record, signals, rules, url, origin, run)
        if problem:
            return [problem], None
        self.verdict = decided(documents, robots, rules, effect, url, agent, origin, run, obeyed,
                               held, also)  # fmt: skip
        found, before = held_against(record, robots, self.verdict, signals, rules, url, agent,
                                     held, obeyed)  # fmt: skip
        if run.schema >= 2:  # schema 1 named them only through a signal; a recheck's item
            # names every one but the kinds its run did not consult (--consult)
            skipped = run.recheck_not_consulted if item else ()
            found += unnamed_documents(record, signals, self.verdict, skipped)
        return without + found, before

    def _answered_differences(
        self, record: dict[str, Any], run: RunContext
    ) -> tuple[list[str], Before | None]:
        """A record of a response a downloader middleware before scrapy_rep's answered
        itself (``answered``, docs/audit-trail.md): no download was made, so no robots.txt
        had to allow it, and no verdict reached it; it is held to what the crawl writes of
        one. A ``fetched`` record, with no attempt and no send; its ``robots`` part says what
        its crawl's robots.txt of its origin said of the URL, which its snapshot must say
        too, and names one whenever its crawl had announced one before it (given up on as
        unreachable: none read). Sent with a ``Host`` naming another site (``addressed``),
        it names that site's robots.txt (its ``line``) and its URL's origin's (``also``),
        each whenever its crawl had announced one before it, and is decided again by those
        it names, as the crawl decided it (by both sites, or by the one had alone:
        :func:`~rep_audit.rederive.sites_of`). A "no" of those documents is an event
        (:attr:`events`): a refusal relabelled ``answered`` keeps its "no" in sight, in
        the record and in ``verify``'s output, or the snapshot it left out is a problem.
        And what those documents say of it for the run's purposes (``None``: nothing
        re-derived), which its page's items were decided with, as a verdict's would have
        been: a usage "no" refuses them (a page answered whose items were kept despite it
        is a finding)."""
        fate, url = text(record.get("fate")), str(record.get("url", ""))
        if record.get("answered") is not True:
            return [f"answered {record.get('answered')!r}: the crawl writes answered only as "
                    "true, on a response a downloader middleware made without a "
                    "download"], None  # fmt: skip
        if fate not in ("fetched", "redirected"):  # a mirror's 301 came as well
            return ([f"recorded {fate or 'without a fate'} and answered: only a response that "
                    "came (fetched) is answered, or a redirect answered so (redirected)"],
                    None)  # fmt: skip
        found = []
        attempts = whole(record.get("attempts"))
        sent = [name for name in ("sent_at", "expires", "sent") if name in record]
        if attempts != 0 or sent:
            said = f"{record.get('attempts')!r} attempt(s)" if attempts != 0 else sent[0]
            found.append(f"recorded answered without a download, but it says {said}: a "
                         "request sent")  # fmt: skip
        robots = mapping(record.get("robots"))
        origin = str(origin_of(url) or "")
        if not origin:
            return found, None
        # its Allow/Disallow not obeyed (its part says so): its usage opt-outs still were
        obeyed = robots.get("obeyed") is not False
        agent = text(robots.get("agent"))
        if robots and run.agents and agent != run.agents[0]:
            found.append(f"answered without a download, but its robots.txt part is read for "
                         f"{agent!r}, not for the crawler's {run.agents[0]!r}")  # fmt: skip
        agent = run.agents[0] if run.agents else agent
        sha = text(robots.get("snapshot"))
        crawl_run = text(record.get("run")) or run.run
        # had when it came: one come since, or let go since it was fetched, was not
        at, use = text(record.get("answered_at")), run.shortest_use
        if not sha:
            had = self.had(crawl_run, f"{origin}/robots.txt", at, use)
            if had and given_up_allowing(text(robots.get("why"))) is None:
                found.append(f"answered without a download, but names no robots.txt of "
                             f"{origin}, though its crawl had one before it: what it says of "
                             "the URL is not recorded")  # fmt: skip
            return found, None
        site, also, problem = self._sites(record, robots, sha, url, run)
        addressed = text(robots.get("addressed"))
        if problem or site not in (origin, addressed):
            return [*found, problem or f"names the robots.txt of {site}, not of {origin}"], None
        # the other site's robots.txt (sent with another Host), had before it, left out
        left_out = addressed if site == origin else ("" if "also" in robots else origin)
        if left_out not in ("", site) and self.had(crawl_run, f"{left_out}/robots.txt", at, use):
            found.append(f"answered without a download, but names no robots.txt of "
                         f"{left_out}, though its crawl had one before it: what it says of "
                         "the URL is not recorded")  # fmt: skip
        rules, effect, problem = self.robots(sha, f"{site}/robots.txt", run)
        if rules is None:
            return [*found, f"robots.txt snapshot {sha[:12]}… {problem}"], None
        said_of = rules.decide(url, agent)
        line = robots.get("line")
        if line != said_of.line:
            said = f"line {line}" if line is not None else "no line"
            now = f"line {said_of.line}" if said_of.line is not None else "no line"
            found.append(f"recorded as said by {said} of its robots.txt, the snapshot gives "
                         f"{now} ({said_of.explanation})")  # fmt: skip
        documents, problem = self.documents(record, [], rules, url, site, run)
        if problem:
            return [*found, problem], None
        verdict = decided(documents, robots, rules, effect, url, agent, site, run, obeyed,
                          (), also)  # fmt: skip
        # a tdmrep.json its crawl had before it, which its page (read: its page part) was
        # decided with, left out (a redirect answered so has no page, and names none)
        tdm = [one for one in (site, origin) if self.had(crawl_run, one + WELL_KNOWN_PATH, at, use)]
        read = fate == "fetched" and "page" in record and "tdmrep" not in record
        if tdm and read and any(one[0] == TDM for one in verdict.used):
            found.append(f"answered without a download, but names no tdmrep.json of "
                         f"{tdm[0]}, though its crawl had one before it: what it says of "
                         "the URL is not recorded")  # fmt: skip
        if isinstance(verdict, Refused):  # what it would have been, had the verdict been asked
            kept = whole(record.get("items_kept")) or 0
            self.events.append(f"its robots.txt says no ({verdict.message}), and a downloader "
                               "middleware before scrapy_rep's answered it without a "
                               f"download: nothing was sent, {kept} item(s) kept")  # fmt: skip
        if isinstance(verdict, Allowed) or (
            isinstance(verdict, Refused) and verdict.reason is Reason.PURPOSE
        ):
            return found, verdict.before
        return found, None

    def _sites(
        self, record: dict[str, Any], robots: dict[str, Any], sha: str, url: str, run: RunContext
    ) -> tuple[str, tuple[RobotsTxt, Effect] | None, str]:
        """The site whose robots.txt decided the request (:func:`sites_of`), and its URL's
        origin's robots.txt when that one decided it too; or why they cannot be read."""
        sites, problem = sites_of(self, record, robots, sha, url, run)
        if problem or len(sites) < 2:
            return (sites[0] if sites else ""), None, problem
        also_sha = text(robots.get("also"))
        rules, effect, problem = self.robots(also_sha, f"{sites[1]}/robots.txt", run)
        if rules is None:
            return sites[0], None, f"robots.txt snapshot {also_sha[:12]}… {problem}"
        return sites[0], (rules, effect), ""

    @staticmethod
    def _without_snapshot(
        record: dict[str, Any], robots: dict[str, Any], url: str, run: RunContext
    ) -> list[str]:
        """A record no robots.txt body decided: nothing to re-derive, but a page sent for
        needs a reason: its origin's robots.txt was given up on as unreachable, the
        give-up verdict let its requests through, and the run's
        ``REP_UNREACHABLE_ACTION`` is ``allow`` (the writer records the verdict, "unreachable
        for … s (…): treated as allowed (REP_UNREACHABLE_ACTION)", in ``robots.why``).
        A request that ``failed`` with no attempt was never sent (a downloader middleware
        before the robots.txt one dropped it): nothing had to allow it."""
        fate = text(record.get("fate"))
        if fate not in SENT_FATES or origin_of(url) is None:
            return []
        if fate == "failed" and whole(record.get("attempts")) == 0:
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


#: The times a re-derivation decides at: after every override's expiry, before all.
_AFTER_ALL: Final = float("inf")
_BEFORE_ALL: Final = float("-inf")


def decided(
    documents: dict[tuple[str, Hashable], CacheEntry[Any]], robots: dict[str, Any],
    rules: RobotsTxt, effect: Effect, url: str, agent: str, origin: str, run: RunContext,
    obeyed: bool, names: tuple[str, ...], also: tuple[RobotsTxt, Effect] | None,
) -> Verdict:  # fmt: skip
    """The crawl's own verdict on the request, from its robots.txt (``rules``; ``also``:
    its URL's own origin's, when it was sent with a ``Host`` addressing ``origin``) and
    the other ``documents`` it was decided with, for every name it was held to."""
    request_rules = RequestRules.of(
        run.purposes, run.unknown, run.agents[1:], purpose_set=True, explain=True,
        rsl_licenses=run.rsl_licenses, overrides=run.overrides,
        max_licenses=run.rsl_max_licenses,
    )  # fmt: skip
    documents[ROBOTS, None] = snapshot_entry(rules, effect is Effect.UNREACHABLE)
    own = origin_of(url)
    if also is not None:
        documents[ROBOTS, own] = snapshot_entry(also[0], also[1] is Effect.UNREACHABLE)

    def known(kind: str, key: Hashable) -> CacheEntry[Any] | None:
        if also is not None and kind == ROBOTS and key == own:
            return documents[ROBOTS, own]
        found = documents.get((kind, key if kind == LICENSE else None))
        return found if found is not None or kind != LICENSE else snapshot_entry(ABSENT)

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
    # (a request it let through says so: override_differences).
    expired = isinstance(robots.get("override_expired"), str)
    return decide(facts, request_rules, known, _AFTER_ALL if expired else _BEFORE_ALL)


def held_against(
    record: dict[str, Any], robots: dict[str, Any], verdict: Verdict, signals: list[dict[str, Any]],
    rules: RobotsTxt, url: str, agent: str, names: tuple[str, ...], obeyed: bool,
) -> tuple[list[str], Before | None]:  # fmt: skip
    """Every way the record differs from ``verdict`` (sentences), and what its documents
    said about it before the fetch (``None``: not allowed)."""
    fate, by = text(record.get("fate")), RefusedBy.of(record.get("refused_by"))
    found: list[str] = []
    if obeyed:
        found += robots_differences(record, robots, verdict, url, agent, rules)
        found += override_differences(robots, verdict)
    before = getattr(verdict, "before", NOTHING_BEFORE)
    found += _signal_differences(before, signals, verdict, rules, names or (agent,))
    refused = verdict if isinstance(verdict, Refused) and fate in SENT_FATES else None
    if refused is not None and refused.reason is Reason.PURPOSE:
        found.append(f"recorded {fate}, but {refused.message.removeprefix('Not fetched: ')} "
                     "(before the fetch)")  # fmt: skip
    if refused is not None and refused.reason is Reason.TDMREP_UNREACHABLE:
        found.append(f"recorded {fate}, but {refused.message}")
    if isinstance(verdict, Allowed) and fate == "refused" and by in USAGE_REFUSALS:
        found.append(f"recorded refused by {by}, but its snapshots deny no purpose of the run")
    return found, before if isinstance(verdict, Allowed) else None


def unnamed_documents(
    record: dict[str, Any],
    signals: list[dict[str, Any]],
    verdict: Verdict,
    skipped: Collection[str] = (),
) -> list[str]:
    """The tdmrep.json and RSL licenses ``verdict`` was decided with that a sent request's
    record (schema 2 on) does not name: its crawl names every document version it was
    decided against (docs/audit-trail.md, ``tdmrep`` and ``rsl``; ``""``: given up on),
    and one left out is read as none, which lets through what it refused; but those of
    the kinds ``skipped`` (a recheck's not consulted: read as none by its run)."""
    fate = text(record.get("fate"))
    if fate not in SENT_FATES:
        return []
    named = set(mapping(record.get("rsl")))
    named.update(license_url_of(text(one.get("source"))) for one in signals
                 if one.get("vocabulary") == "rsl")  # fmt: skip
    found: dict[str, None] = {}  # a request sent with a Host names one tdmrep.json
    for kind, key, _ in verdict.used:
        if kind in skipped:
            continue
        if (kind == TDM and "tdmrep" not in record) or (kind == LICENSE and key not in named):
            what = f"tdmrep.json of {key}" if kind == TDM else f"RSL license {key}"
            found[f"recorded {fate}, but names no {what}, which its request was decided "
                  "with: read as none"] = None  # fmt: skip
    return list(found)


def _signal_differences(
    before: Before, signals: list[dict[str, Any]], verdict: Verdict, rules: RobotsTxt,
    names: tuple[str, ...],
) -> list[str]:  # fmt: skip
    """The usage signals recorded from a snapshot held against what it says today."""
    derived = {signal.source: signal.answers for signal in before.every}
    for name in names:  # trails of earlier releases: one signal, no line
        legacy = content_signal_signal(rules.content_signals(name))
        derived.setdefault(legacy.source, legacy.answers)
    found = []
    for signal in signals if not _robots_refused(verdict) else ():
        if not signal.get("snapshot") or page_license(signal, rules.licenses):
            continue  # a page's own signal: taken as recorded
        source = str(signal.get("source", ""))
        if source not in derived:
            found.append(f"usage signal {source!r} is not in its snapshot")
        elif derived[source] != _answers(signal.get("answers")):
            found.append(f"usage signal {source!r} answers differently today")
    return found


def robots_differences(
    record: dict[str, Any], robots: dict[str, Any], verdict: Verdict, url: str, agent: str,
    rules: RobotsTxt,
) -> list[str]:  # fmt: skip
    """The recorded fate and deciding line held against robots.txt's part of the
    verdict (the crawler's own group, then those of ``REP_PURPOSE_AGENTS``)."""
    fate, by = text(record.get("fate")), RefusedBy.of(record.get("refused_by"))
    found = []
    if isinstance(verdict, Refused) and verdict.robots is not None and verdict.line:
        decision = verdict.robots
    elif (isinstance(verdict, (Allowed, Refused)) and verdict.robots_agent
          and verdict.robots is not None):  # fmt: skip
        decision = verdict.robots  # the line an override went past, of the sent-as name
    else:
        decision = rules.decide(url, agent)
    if fate in SENT_FATES and _robots_refused(verdict):
        assert isinstance(verdict, Refused) and verdict.robots is not None
        found.append(f"recorded {fate}, but robots.txt disallows it for {verdict.agent} "
                     f"({verdict.robots.explanation})")  # fmt: skip
    if fate == "refused" and by is RefusedBy.ROBOTS_TXT and not _robots_refused(verdict):
        found.append(f"recorded refused by robots.txt, but it allows it for {agent} "
                     f"({decision.explanation})")  # fmt: skip
    line = robots.get("line")
    if line != decision.line and (line is not None or fate != "unfinished"):
        said = f"line {line}" if line is not None else "no line"
        now = f"line {decision.line}" if decision.line is not None else "no line"
        found.append(f"recorded as decided by {said}, the snapshot gives {now} "
                     f"({decision.explanation})")  # fmt: skip
    return found


def override_differences(robots: dict[str, Any], verdict: Verdict) -> list[str]:
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


def _answers(value: Any) -> tuple[bool | None, ...]:
    """A recorded signal's answers (``{"ai-train": false}``) in :data:`PURPOSES` order."""
    if isinstance(value, dict):
        return tuple(value.get(p) for p in PURPOSES)
    if isinstance(value, list) and len(value) == len(PURPOSES):
        return tuple(value)
    return (None,) * len(PURPOSES)


def sites_of(
    index: Documents, record: dict[str, Any], robots: dict[str, Any], sha: str, url: str,
    run: RunContext,
) -> tuple[tuple[str, ...], str]:  # fmt: skip
    """The sites whose robots.txt decided a request (docs/audit-trail.md, ``robots``):
    the one its snapshot is of (its URL's origin, or the site its ``Host`` addressed,
    ``addressed``), then its URL's origin when ``also`` names that one's robots.txt
    too; or why they are not those a crawl could have named. A snapshot that no
    ``snapshot`` line describes is taken as the URL's origin's (said on its own). A
    schema 1 run wrote a body's line once (for the first site that served it), and
    named no site addressed: its records name the robots.txt of ``origin`` (which
    must be their URL's origin: a schema 1 crawl read no ``Host``), else of their
    URL's origin, as written. From schema 2 a run writes its own ``snapshot`` line for
    each body it uses: the snapshots a record names are ones its own crawl announced
    (its run, or the run a ``JOBDIR`` resume carries on), not another run's."""
    own = str(origin_of(url) or "")
    addressed = text(robots.get("addressed"))
    named = text(robots.get("origin"))
    if run.schema < 2:  # no Host reading: only its URL's site's robots.txt decided it
        if named and str(origin_of(f"{named}/") or named) != own:
            return (), f"names the robots.txt of {named}, not of its URL's site {own}"
        return (named or own,), ""
    crawl = index.crawl_of(text(record.get("run")) or run.run)

    def announced(body: str) -> set[str]:  # what its own crawl announced it for
        return index.crawl_robots_urls.get((crawl, body), set())

    for body in (sha, text(robots.get("also"))):
        if body and body in index.robots_urls and not announced(body):
            return (), (f"names the robots.txt snapshot {body[:12]}…, which its run "
                        f"{crawl[:8]} did not announce (another run's)")  # fmt: skip
    site, problem = _site(announced(sha), sha, own, addressed, named)
    if problem:
        return (), problem
    return _with_also(record, robots, site, own, announced, run)


def _site(
    fetched_from: set[str], sha: str, own: str, addressed: str, named: str
) -> tuple[str, str]:
    """The site whose robots.txt snapshot ``sha`` is (fetched from ``fetched_from``), of
    those the record could name, or why it is none of them."""
    sites = [site for site in (addressed, own) if site]
    if named and named not in sites:
        sites.insert(0, named)  # an earlier release wrote the URL's origin as "origin"
    of = [site for site in sites if f"{site}/robots.txt" in fetched_from]
    if fetched_from and not of:
        where = f"its URL's site {own}" + (f" nor of {addressed}, the site its Host "
                                           "addressed" if addressed else "")  # fmt: skip
        first = sorted(fetched_from)[0]
        return "", (f"names the robots.txt snapshot {sha[:12]}… of {first}, which is not "
                    f"that of {where}")  # fmt: skip
    if named and named not in (addressed, own):
        return "", f"names the robots.txt of {named}, not of its URL's site {own}"
    return of[0] if of else named or own, ""


def _with_also(
    record: dict[str, Any], robots: dict[str, Any], site: str, own: str,
    announced: Callable[[str], set[str]], run: RunContext,
) -> tuple[tuple[str, ...], str]:  # fmt: skip
    """``site``, then its URL's origin ``own`` when ``also`` names that one's robots.txt
    too (a request sent with a ``Host`` addressing ``site``). An ``also`` ``""`` (its
    URL's site's robots.txt given up on as unreachable) lets a request through only when
    the give-up verdict allows (``REP_UNREACHABLE_ACTION`` ``allow``): it disallows
    everything otherwise (SPEC §4). A response a downloader middleware answered before
    the verdict (``answered``) was not sent: it names its URL's site's robots.txt only
    when its crawl had it (:meth:`rep_audit.rederive.Rederiver._answered_differences`
    holds it to that)."""
    addressed = text(robots.get("addressed"))
    sent = text(record.get("fate")) in SENT_FATES and "answered" not in record
    if "also" not in robots:
        if site == addressed != own and sent:
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
        if sent and run.unreachable_action != "allow":
            return (), (f"recorded {fate}, but its URL's site's robots.txt ({own}, also) "
                        "was given up on as unreachable and the run's "
                        "REP_UNREACHABLE_ACTION is not 'allow'")  # fmt: skip
        return (site,), ""
    also_from = announced(also)
    if also and also_from and f"{own}/robots.txt" not in also_from:
        return (), (f"names as its URL's site's robots.txt (also) the snapshot "
                    f"{also[:12]}… of {sorted(also_from)[0]}, not of {own}")  # fmt: skip
    return (site, own), ""


def foreign(index: Documents, record: dict[str, Any], robots: str, origin: str, url: str) -> str:
    """Why an item's snapshots are not its own (``""``: they are): each it names
    (robots.txt, tdmrep.json, RSL licenses) announced by its own run for the document
    of its own origin, not another origin's or an older run's."""
    run = text(record.get("run"))
    own = str(origin_of(url) or "")
    if origin != own:
        return f"item names the robots.txt of {origin}, not of its own origin {own}"
    named = [("robots.txt", robots, f"{own}/robots.txt")] if robots else []  # "": not had
    if tdm := text(record.get("tdmrep")):
        named.append(("tdmrep.json", tdm, f"{own}{WELL_KNOWN_PATH}"))
    for license_url, sha in mapping(record.get("rsl")).items():
        if text(sha):
            named.append(("RSL license", text(sha), text(license_url)))
    for kind, sha, document in named:
        if not index.announced(run, sha, document):
            return (f"item names {kind} snapshot {sha[:12]}…, which its run "
                    f"{run[:8]} did not announce for {document} (another origin's, "
                    "or another run's)")  # fmt: skip
    return ""
