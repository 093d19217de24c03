"""Re-deriving a trail's decisions from its snapshots with today's engine (pure).

For each ``url`` line (schemas 1 and 2, ``docs/audit-trail.md``), :class:`Rederiver`
parses the robots.txt snapshot that decided it with the run's ``profile`` and asks the
engine again (:func:`rep_engine.robotstxt.parse_robotstxt`):

- a request is decided again for the names its crawl decided it for: the run's crawler
  name (:func:`~rep_audit.runcontext.declared_agent`, not the name the record says), the
  names it was held to and the run's ``REP_PURPOSE_AGENTS`` (``agents``); a page
  recorded ``fetched``, ``redirected`` or ``failed`` must be allowed for each;
- a page refused by ``robots.txt`` must be disallowed; the deciding line must be the one
  recorded, with its text (from schema 2), and so must the name whose group decided it;
  from schema 2 a refusal's ``why`` is the verdict's sentence (:func:`why_differences`);
- the usage signals drawn from a snapshot (robots.txt ``Content-Usage`` /
  ``Content-Signal``, tdmrep.json) must still say what was recorded (a line quoted as a
  release before this one quoted it read as that line's quote: :func:`earlier_quotes`),
  and an explicit "no" for a purpose of the run means the page was refused before it was
  fetched (:meth:`rep_engine.verdict.policy.UsagePolicy.refuse_before`). A page's own
  signals (headers, meta) have no snapshot and are taken as recorded;
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

from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from dataclasses import replace
from typing import Any, Final

from rep_audit.documents import Documents, page_license, snapshot_entry
from rep_audit.pages import (
    page_differences,
    recorded_signal,
    recorded_signals,
    said_key,
    says_something,
)
from rep_audit.runcontext import NO_ROBOTS, RunContext, declared_agent, held_to
from rep_engine.directives import product_token
from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.lifecycle.shared import given_up_allowing
from rep_engine.fetch.rules import Effect
from rep_engine.records import (
    REFUSED_BY,
    RESPONSE_FATES,
    SENT_FATES,
    USAGE_REFUSALS,
    Fate,
    FateRecord,
    Reason,
    RefusedBy,
    RobotsPart,
    UrlEntry,
    iso_time,
    mapping,
    text,
    whole,
)
from rep_engine.robotstxt import ALLOW_ALL, Decision, RobotsTxt
from rep_engine.trail.read import SnapshotStore
from rep_engine.urls.origins import Origin, origin_of
from rep_engine.usage.purpose import PURPOSES, UsageSignal, content_signal_signal, rule_signal
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
        #: The quotes of the last record's robots.txt lines as releases before this one
        #: wrote them, each with the quote written now (:func:`earlier_quotes`).
        self.quotes: dict[str, str] = {}

    def differences(self, read: FateRecord, run: RunContext) -> list[str]:
        """Every way the record ``read`` differs from what its snapshots say today, and a
        fetched page's from what it said (sentences); :attr:`events`, what it showed
        besides."""
        self.events, self.quotes = [], {}
        if (tdm := written_tdm(read.record)) != read.entry.tdm:
            read = read._replace(entry=replace(read.entry, tdm=tdm))
        entry, record = read.entry, read.record
        if "answered" in record:  # no download, no verdict (as written: its value is checked)
            found, before = self._answered_differences(read, run)
        else:
            found, before = self._request_differences(entry, record, run)
        if entry.fate in RESPONSE_FATES:
            found += page_differences(
                quoted_now(record, self.quotes), run.page, held_to(entry.robots, run), before,
                self._page_licenses(entry, run), self.page_part,
                lambda url, sub: said_key(run.run, url, sub) in self.said,
                lambda url: self.answered.get((run.run, url)),
            )  # fmt: skip
            if "answered" in record and before is not None and entry.page is not None:
                # its part may say nothing: its origin did
                self.answered[run.run, entry.url] = before
                self.said.add(said_key(run.run, entry.url, entry.page))
            elif says_something(entry.page):
                self.said.add(said_key(run.run, entry.url, entry.page))
        return found

    def _page_licenses(self, entry: UrlEntry, run: RunContext) -> tuple[UsageSignal, ...]:
        """The signals of the RSL licenses the page named (not the ``License:`` URLs of its
        robots.txt snapshot), in the record's order: from their snapshots where they have
        one, else as recorded (an inline license, one given up on)."""
        sha = (entry.robots or NO_ROBOTS).sha256
        rules = (
            self.robots(sha, f"{origin_of(entry.url) or ''}/robots.txt", run)[0] if sha else None
        )
        named = tuple(rules.licenses) if rules is not None else ()
        signals: list[UsageSignal] = []
        done: set[str] = set()
        for signal in recorded_signals(entry.usage):
            license_url = license_url_of(text(signal.get("source")))
            snapshot = text(signal.get("snapshot"))
            if not page_license(signal, named) or (snapshot and license_url in done):
                continue
            document = None
            if snapshot:
                done.add(license_url)
                document = self.store.parsed(snapshot, "rsl", parse_rsl)
            if document is None:  # none read, or unreadable: reported by the request's check
                signals.append(recorded_signal(signal))
            else:
                owned = owned_licenses(run.rsl_licenses)
                signals.extend(rsl_signals(document, entry.url, owned, license_url))
        return tuple(signals)

    def _request_differences(
        self, entry: UrlEntry, record: dict[str, Any], run: RunContext, item: bool = False
    ) -> tuple[list[str], Before | None]:
        """Every way a request's record (``entry``, read from ``record``) differs from what
        its snapshots say today (sentences), and what its documents said about it before
        the fetch (``None``: not re-derived). ``item``: a recheck's ``item``
        (:mod:`rep_audit.items`, the fate it is held to in ``entry``), whose snapshots are
        its own run's, of its own origin, and whose ``tdmrep`` ``""`` is a tdmrep.json not
        had (read as the crawl reads one given up on)."""
        self.verdict, self.quotes = None, {}
        robots = entry.robots or NO_ROBOTS
        without: list[str] = []
        if not robots.sha256:
            # Allow/Disallow not obeyed for it (ROBOTSTXT_OBEY = False, dont_obey_robotstxt):
            # only the AI-usage opt-outs of its snapshot (if one was read) decided.
            without = self._without_snapshot(entry, record, robots, run) if robots.obeyed else []
            # An item whose robots.txt was not had and whose tdmrep.json was: that one may
            # refuse it all the same, robots.txt read as none (as the recheck reads it: a
            # "no" had is not lost to a robots.txt given up on).
            if not (item and entry.tdm):
                return without, None
        # an earlier release wrote the URL's origin in its robots part: read as written
        written = mapping(record.get("robots"))
        run_id = text(record.get("run")) or run.run
        origin = text(written.get("origin")) or str(origin_of(entry.url) or "")
        if item and (problem := foreign(self, entry, run_id, origin)):
            return [problem], None
        also: tuple[RobotsTxt, Effect] | None = None
        if not item:
            sent = entry.fate in SENT_FATES
            origin, also, problem = self._sites(entry, written, self.crawl_of(run_id), run, sent)
            if problem:
                return [problem], None
        found, before = self._decided_again(entry, record, run, run_id, origin, also, item)
        return without + found, before

    def _decided_again(
        self, entry: UrlEntry, record: dict[str, Any], run: RunContext, run_id: str,
        origin: str, also: tuple[RobotsTxt, Effect] | None, item: bool,
    ) -> tuple[list[str], Before | None]:  # fmt: skip
        """A request's record held against the crawl's own verdict (:func:`decided`) on
        its snapshots (``origin``'s robots.txt, and ``also``; none named: none had), for
        every name it was held to (the declared one first), and what its documents said
        about it before the fetch (``None``: not allowed, or not re-derived)."""
        robots = entry.robots or NO_ROBOTS
        sha, held = robots.sha256, robots.agents if len(robots.agents) > 1 else ()
        agent = declared_agent(robots, run, item)
        if held and product_token(held[0]) != product_token(agent):
            return [f"held to {', '.join(held)}, but its run's crawler is {agent} (the "
                    "first name a request is held to)"], None  # fmt: skip
        rules, effect, problem = (
            self.robots(sha, f"{origin}/robots.txt", run)
            if sha
            else (ALLOW_ALL, Effect.ALLOW_ALL, "")
        )
        if rules is None:
            return [f"robots.txt snapshot {sha[:12]}… {problem}"], None
        self.quotes = earlier_quotes(rules, (agent, *held, *run.agents[1:]))
        signals = recorded_signals(quoted_now(record, self.quotes).get("usage"))
        documents, problem = self.documents(entry, run_id, signals, rules, origin, run)
        if problem:
            return [problem], None
        written = mapping(record.get("robots"))
        self.verdict = decided(documents, written, rules, effect, entry.url, agent, origin, run,
                               held, also)  # fmt: skip
        found, before = held_against(entry, record, self.verdict, signals, rules, agent, held,
                                     quoted=run.schema >= 2)  # fmt: skip
        if not item and run.schema >= 2 and entry.fate is Fate.REFUSED:
            found += _refusal_words(entry, self.verdict, self.quotes)
        if run.schema >= 2:  # schema 1 named them only through a signal; a recheck's item
            # names every one but the kinds its run did not consult (--consult)
            skipped = run.recheck_not_consulted if item else ()
            found += unnamed_documents(entry, signals, self.verdict, skipped)
        return found, before

    def _answered_differences(
        self, read: FateRecord, run: RunContext
    ) -> tuple[list[str], Before | None]:
        """A record of a response a downloader middleware before scrapy_rep's answered
        itself (``answered``, docs/audit-trail.md): no download was made, so no robots.txt
        had to allow it, and no verdict reached it; it is held to what the crawl writes of
        one: a ``fetched`` record (or ``redirected``: a mirror's 301 came as well), with no
        attempt and no send, and what its ``robots`` part names (:meth:`_answered_named`).
        And what its documents say of it for the run's purposes (``None``: nothing
        re-derived), which its page's items were decided with, as a verdict's would have
        been: a usage "no" refuses them (a page answered whose items were kept despite it
        is a finding)."""
        entry, record = read.entry, read.record
        # as written: answered, its attempts and its send times
        if record.get("answered") is not True:
            return [f"answered {record.get('answered')!r}: the crawl writes answered only as "
                    "true, on a response a downloader middleware made without a "
                    "download"], None  # fmt: skip
        if not entry.answered:
            return ([f"recorded {read.word or 'without a fate'} and answered: only a response "
                    "that came (fetched) is answered, or a redirect answered so (redirected)"],
                    None)  # fmt: skip
        found = []
        sent = [name for name in ("sent_at", "expires", "sent") if name in record]
        if read.attempts != 0 or sent:
            said = f"{record.get('attempts')!r} attempt(s)" if read.attempts != 0 else sent[0]
            found.append(f"recorded answered without a download, but it says {said}: a "
                         "request sent")  # fmt: skip
        origin = str(origin_of(entry.url) or "")
        return self._answered_named(read, run, origin, found) if origin else (found, None)

    def _answered_named(
        self, read: FateRecord, run: RunContext, origin: str, found: list[str]
    ) -> tuple[list[str], Before | None]:
        """``found``, and what an answered record's ``robots`` part names: what its crawl's
        robots.txt of its ``origin`` said of the URL, for the crawler's name, which its
        snapshot must say too; one whenever its crawl had announced one before it (given up
        on as unreachable: none read). Sent with a ``Host`` naming another site
        (``addressed``), it names that site's robots.txt (its ``line``) and its URL's
        origin's (``also``), each whenever its crawl had announced one before it, and is
        decided again by those it names, as the crawl decided it (by both sites, or by the
        one had alone: :func:`sites_of`). A "no" of those documents is an event
        (:attr:`events`): a refusal relabelled ``answered`` keeps its "no" in sight, in the
        record and in ``verify``'s output, or the snapshot it left out is a problem."""
        entry, robots = read.entry, read.entry.robots or NO_ROBOTS
        if entry.robots is not None and run.agents and robots.agent != run.agents[0]:
            found.append(f"answered without a download, but its robots.txt part is read for "
                         f"{robots.agent!r}, not for the crawler's {run.agents[0]!r}")  # fmt: skip
        agent = run.agents[0] if run.agents else robots.agent
        crawl_run, at = read.run or run.run, text(read.record.get("answered_at"))

        def had(site: str, path: str = "/robots.txt") -> bool:  # had when it came: one come
            # since, or let go since it was fetched, was not
            return self.had(crawl_run, site + path, at, run.shortest_use)

        if not robots.sha256:
            if had(origin) and given_up_allowing(robots.why) is None:
                found.append(_NOT_NAMED.format("robots.txt", origin))
            return found, None
        written = mapping(read.record.get("robots"))
        site, also, problem = self._sites(entry, written, self.crawl_of(crawl_run), run, False)
        if problem or site not in (origin, robots.addressed):
            return [*found, problem or f"names the robots.txt of {site}, not of {origin}"], None
        # the other site's robots.txt (sent with another Host), had before it, left out
        left_out = robots.addressed if site == origin else ("" if "also" in written else origin)
        if left_out not in ("", site) and had(left_out):
            found.append(_NOT_NAMED.format("robots.txt", left_out))
        said, before = self._answered_decided(read, run, site, also, agent, had)
        return found + said, before

    def _answered_decided(
        self, read: FateRecord, run: RunContext, site: str, also: tuple[RobotsTxt, Effect] | None,
        agent: str, had: Callable[[str, str], bool],
    ) -> tuple[list[str], Before | None]:  # fmt: skip
        """An answered record decided again by the documents it names (``site``'s
        robots.txt, and ``also``), as its crawl decided it for the crawler's name
        (``agent``): the line its ``robots`` part says, a tdmrep.json its crawl had before
        it (``had``) that its page was decided with left out, a "no" an event; and what they
        say of it for the run's purposes (``None``: nothing re-derived)."""
        entry, robots = read.entry, read.entry.robots or NO_ROBOTS
        rules, effect, problem = self.robots(robots.sha256, f"{site}/robots.txt", run)
        if rules is None:
            return [f"robots.txt snapshot {robots.sha256[:12]}… {problem}"], None
        self.quotes = earlier_quotes(rules, (agent, *run.agents[1:]))
        found = _line_differences(read.record, rules.decide(entry.url, agent), "said by",
                                  " of its robots.txt", quoted=run.schema >= 2)  # fmt: skip
        documents, problem = self.documents(entry, read.run or run.run, [], rules, site, run)
        if problem:
            return [*found, problem], None
        written = mapping(read.record.get("robots"))
        verdict = decided(documents, written, rules, effect, entry.url, agent, site, run, (), also)
        # its page (read: its page part) was decided with it (a redirect answered so has no
        # page, and names none)
        tdm = [one for one in (site, str(origin_of(entry.url))) if had(one, WELL_KNOWN_PATH)]
        page = entry.fate in RESPONSE_FATES and entry.page is not None and entry.tdm is None
        if tdm and page and any(one[0] == TDM for one in verdict.used):
            found.append(_NOT_NAMED.format("tdmrep.json", tdm[0]))
        if isinstance(verdict, Refused):  # what it would have been, had the verdict been asked
            kept = whole(read.record.get("items_kept")) or 0  # as the record says
            self.events.append(f"its robots.txt says no ({verdict.message}), and a downloader "
                               "middleware before scrapy_rep's answered it without a "
                               f"download: nothing was sent, {kept} item(s) kept")  # fmt: skip
        if isinstance(verdict, Allowed) or (
            isinstance(verdict, Refused) and verdict.reason is Reason.PURPOSE
        ):
            return found, verdict.before
        return found, None

    def _sites(
        self, entry: UrlEntry, written: dict[str, Any], crawl: str, run: RunContext, sent: bool
    ) -> tuple[str, tuple[RobotsTxt, Effect] | None, str]:
        """The site whose robots.txt decided the request (:func:`sites_of`), and its URL's
        origin's robots.txt when that one decided it too; or why they cannot be read."""
        sites, problem = sites_of(self, entry, written, crawl, run, sent)
        if problem or len(sites) < 2:
            return (sites[0] if sites else ""), None, problem
        also_sha = (entry.robots or NO_ROBOTS).also or ""
        rules, effect, problem = self.robots(also_sha, f"{sites[1]}/robots.txt", run)
        if rules is None:
            return sites[0], None, f"robots.txt snapshot {also_sha[:12]}… {problem}"
        return sites[0], (rules, effect), ""

    @staticmethod
    def _without_snapshot(
        entry: UrlEntry, record: dict[str, Any], robots: RobotsPart, run: RunContext
    ) -> list[str]:
        """A record no robots.txt body decided: nothing to re-derive, but a page sent for
        needs a reason: its origin's robots.txt was given up on as unreachable, the
        give-up verdict let its requests through, and the run's
        ``REP_UNREACHABLE_ACTION`` is ``allow`` (the writer records the verdict, "unreachable
        for … s (…): treated as allowed (REP_UNREACHABLE_ACTION)", in ``robots.why``).
        A request that ``failed`` with no attempt was never sent (a downloader middleware
        before the robots.txt one dropped it): nothing had to allow it."""
        fate = entry.fate
        if fate not in SENT_FATES or origin_of(entry.url) is None:
            return []
        if fate is Fate.FAILED and whole(record.get("attempts")) == 0:  # as written
            return []
        allowed = given_up_allowing(robots.why)
        if allowed is None:
            return ["no robots.txt snapshot names what allowed it"]
        if not allowed:
            return [f"recorded {fate}, but its robots.txt was given up on as unreachable "
                    "and its requests dropped"]  # fmt: skip
        if run.unreachable_action != "allow":
            return [f"recorded {fate}, but its robots.txt was given up on as unreachable "
                    "and the run's REP_UNREACHABLE_ACTION is not 'allow'"]  # fmt: skip
        return []


def _refusal_words(entry: UrlEntry, verdict: Verdict, quotes: Mapping[str, str]) -> list[str]:
    """A crawl's record refused by robots.txt or by a purpose's "no", whose snapshots
    refuse it so too, held to the sentence its crawl wrote, the verdict's own
    (:func:`why_differences`); a refusal they do not give is said by
    :func:`held_against`."""
    by = RefusedBy.of(entry.refused_by)
    if by not in (RefusedBy.ROBOTS_TXT, RefusedBy.PURPOSE) or not isinstance(verdict, Refused):
        return []
    if REFUSED_BY.get(verdict.reason) is not by:
        return []
    return why_differences(entry.why, verdict, quotes)


def why_differences(why: str, verdict: Refused, quotes: Mapping[str, str]) -> list[str]:
    """A refusal's sentence (a record's ``why``) held against its verdict's, which the
    crawl and the recheck write as it is: the agent whose group refused it, the line, the
    signal that said no; or as a release before this one worded it, its deciding robots.txt
    line quoted as that release quoted it (``quotes``: :func:`earlier_quotes`), the
    sentence otherwise the same."""
    if why == verdict.message:
        return []
    source = verdict.signal.source if verdict.signal is not None else ""
    if source and any(why == verdict.message.replace(source, earlier)
                      for earlier, now in quotes.items() if now == source):  # fmt: skip
        return []
    return [f"recorded refused with why {why!r}, but its snapshots say {verdict.message!r}"]


def earlier_quotes(rules: RobotsTxt, names: Iterable[str]) -> dict[str, str]:
    """How releases before this one quoted the ``Content-Signal`` and ``Content-Usage``
    lines of ``rules`` that apply to ``names`` (a signal's ``source``), each with the quote
    written now, its line as the site wrote it: a ``Content-Signal`` line by its items
    read (``Content-Signal: search=yes, ai-train=no`` for ``content-signal:
    search=yes,ai-train=no``), a ``Content-Usage`` line by its key's one spelling. Each
    names its line: a trail written before is read as that line's quote now, never as
    another line's, and says no more than the line does."""
    quotes: dict[str, str] = {}
    for name in dict.fromkeys(names):
        for line in rules.content_signal_lines(name):
            if line.written:
                now = content_signal_signal(line).source
                quotes.setdefault(content_signal_signal(replace(line, written="")).source, now)
        for rule in rules.content_usage(name).rules:
            if rule.written_key:
                now = rule_signal(rule).source
                quotes.setdefault(rule_signal(rule._replace(written_key="")).source, now)
    return {earlier: now for earlier, now in quotes.items() if earlier != now}


def quoted_now(record: dict[str, Any], quotes: Mapping[str, str]) -> dict[str, Any]:
    """``record`` with each ``usage`` signal that quotes a robots.txt line as an earlier
    release did (``quotes``: :func:`earlier_quotes`) quoting it as written now (a copy;
    ``record`` itself when none does)."""
    usage = mapping(record.get("usage"))
    signals = usage.get("signals") if quotes else None
    if not isinstance(signals, list):
        return record

    def earlier(signal: Any) -> str | None:
        source = signal.get("source") if isinstance(signal, dict) else None
        return source if isinstance(source, str) and source in quotes else None

    if not any(earlier(signal) for signal in signals):
        return record
    now = [{**signal, "source": quotes[said]} if (said := earlier(signal)) else signal
           for signal in signals]  # fmt: skip
    return {**record, "usage": {**usage, "signals": now}}


def written_tdm(record: dict[str, Any]) -> str | None:
    """A record's ``tdmrep`` as written: any value names a tdmrep.json, one that is no
    snapshot's name read as given up on (``""``), never as none named (``None``)."""
    return text(record.get("tdmrep")) if "tdmrep" in record else None


#: A document an answered record does not name, though its crawl had it before it.
_NOT_NAMED: Final = (
    "answered without a download, but names no {} of {}, though its crawl had one before it: "
    "what it says of the URL is not recorded"
)
#: The times a re-derivation decides at: after every override's expiry, before all.
_AFTER_ALL: Final = float("inf")
_BEFORE_ALL: Final = float("-inf")


def decided(
    documents: dict[tuple[str, Hashable], CacheEntry[Any]], robots: dict[str, Any],
    rules: RobotsTxt, effect: Effect, url: str, agent: str, origin: str, run: RunContext,
    names: tuple[str, ...], also: tuple[RobotsTxt, Effect] | None,
) -> Verdict:  # fmt: skip
    """The crawl's own verdict on the request, from its robots.txt (``rules``; ``also``:
    its URL's own origin's, when it was sent with a ``Host`` addressing ``origin``) and
    the other ``documents`` it was decided with, for every name it was held to; its
    Allow/Disallow obeyed unless its ``robots`` part (as written) says not."""
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
    obey = Obey.ALL if robots.get("obeyed") is not False else Obey.USAGE
    facts = RequestFacts(url, target, agent, obey, names, served_by=served_by)
    # The trail does not say when a request was decided: one whose record says its
    # host's override had expired is decided after it, any other while it held
    # (a request it let through says so: override_differences); as written, any text.
    expired = isinstance(robots.get("override_expired"), str)
    return decide(facts, request_rules, known, _AFTER_ALL if expired else _BEFORE_ALL)


def held_against(
    entry: UrlEntry, record: dict[str, Any], verdict: Verdict, signals: list[dict[str, Any]],
    rules: RobotsTxt, agent: str, names: tuple[str, ...], quoted: bool = False,
) -> tuple[list[str], Before | None]:  # fmt: skip
    """Every way the request's record (``entry``, read from ``record``) differs from
    ``verdict`` (sentences), and what its documents said about it before the fetch
    (``None``: not allowed). ``quoted``: its deciding line's text is held to the
    snapshot's too (:func:`_line_differences`)."""
    fate, robots = entry.fate, entry.robots or NO_ROBOTS
    found: list[str] = []
    if robots.obeyed:
        found += robots_differences(entry, record, verdict, agent, rules, quoted)
        found += override_differences(robots, record, verdict)
    before = getattr(verdict, "before", NOTHING_BEFORE)
    found += _signal_differences(before, signals, verdict, rules, names or (agent,))
    refused = verdict if isinstance(verdict, Refused) and fate in SENT_FATES else None
    if refused is not None and refused.reason is Reason.PURPOSE:
        found.append(f"recorded {fate}, but {refused.message.removeprefix('Not fetched: ')} "
                     "(before the fetch)")  # fmt: skip
    if refused is not None and refused.reason is Reason.TDMREP_UNREACHABLE:
        found.append(f"recorded {fate}, but {refused.message}")
    by = RefusedBy.of(entry.refused_by)
    if isinstance(verdict, Allowed) and fate is Fate.REFUSED and by in USAGE_REFUSALS:
        found.append(f"recorded refused by {by}, but its snapshots deny no purpose of the run")
    return found, before if isinstance(verdict, Allowed) else None


def unnamed_documents(
    entry: UrlEntry,
    signals: list[dict[str, Any]],
    verdict: Verdict,
    skipped: Collection[str] = (),
) -> list[str]:
    """The tdmrep.json and RSL licenses ``verdict`` was decided with that a sent request's
    record (schema 2 on) does not name: its crawl names every document version it was
    decided against (docs/audit-trail.md, ``tdmrep`` and ``rsl``; ``""``: given up on),
    and one left out is read as none, which lets through what it refused; but those of
    the kinds ``skipped`` (a recheck's not consulted: read as none by its run)."""
    if entry.fate not in SENT_FATES:
        return []
    named = set(entry.licenses or ())
    named.update(license_url_of(text(one.get("source"))) for one in signals
                 if one.get("vocabulary") == "rsl")  # fmt: skip
    found: dict[str, None] = {}  # a request sent with a Host names one tdmrep.json
    for kind, key, _ in verdict.used:
        if kind in skipped:
            continue
        if (kind == TDM and entry.tdm is None) or (kind == LICENSE and key not in named):
            what = f"tdmrep.json of {key}" if kind == TDM else f"RSL license {key}"
            found[f"recorded {entry.fate}, but names no {what}, which its request was decided "
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
    entry: UrlEntry, record: dict[str, Any], verdict: Verdict, agent: str, rules: RobotsTxt,
    quoted: bool = False,
) -> list[str]:  # fmt: skip
    """The recorded fate, agent and deciding line (``quoted``: and its text) held against
    robots.txt's part of the verdict (the crawler's own group, then those of
    ``REP_PURPOSE_AGENTS``)."""
    fate, by = entry.fate, RefusedBy.of(entry.refused_by)
    found = []
    if isinstance(verdict, Refused) and verdict.robots is not None and verdict.line:
        decision = verdict.robots
    elif (isinstance(verdict, (Allowed, Refused)) and verdict.robots_agent
          and verdict.robots is not None):  # fmt: skip
        decision = verdict.robots  # the line an override went past, of the sent-as name
    else:
        decision = rules.decide(entry.url, agent)
    if fate in SENT_FATES and _robots_refused(verdict):
        assert isinstance(verdict, Refused) and verdict.robots is not None
        found.append(f"recorded {fate}, but robots.txt disallows it for {verdict.agent} "
                     f"({verdict.robots.explanation})")  # fmt: skip
    if fate is Fate.REFUSED and by is RefusedBy.ROBOTS_TXT and not _robots_refused(verdict):
        found.append(f"recorded refused by robots.txt, but it allows it for {agent} "
                     f"({decision.explanation})")  # fmt: skip
    found += _agent_differences(entry, verdict, agent, decision)
    # an unfinished request names no line when none was decided
    unfinished = fate is Fate.UNFINISHED
    return found + _line_differences(record, decision, unfinished=unfinished, quoted=quoted)


def _agent_differences(
    entry: UrlEntry, verdict: Verdict, agent: str, decision: Decision
) -> list[str]:
    """The name a record's ``robots`` part says decided it held against the verdict's, as
    both writers name it (``lines.robots_part_of``'s ``agent``): the name whose group
    refused it (a ``REP_PURPOSE_AGENTS`` token, the name it was sent as), the name whose
    line an override went past, else the crawler's (``agent``); product tokens, compared
    as robots.txt compares them (RFC 9309 §2.2.1: case-insensitively)."""
    recorded = (entry.robots or NO_ROBOTS).agent
    if not isinstance(verdict, (Allowed, Refused)) or entry.robots is None:
        return []
    named = verdict.robots_agent or (verdict.agent if isinstance(verdict, Refused) else agent)
    if product_token(recorded) == product_token(named):
        return []
    return [f"recorded as decided for {recorded or 'no name'}, its snapshot decides it for "
            f"{named} ({decision.explanation})"]  # fmt: skip


def _line_differences(
    record: dict[str, Any], decision: Decision, said: str = "decided by", of: str = "",
    unfinished: bool = False, quoted: bool = False,
) -> list[str]:  # fmt: skip
    """The robots.txt line a record's ``robots`` part names held against the one its
    snapshot gives (``decision``): as written (a line that is no number is said as it is),
    none for an ``unfinished`` request's (it may not have been decided); ``quoted`` (from
    schema 2, which quotes it as the file spells it): its ``rule`` too, the line's text
    that ``audit show`` and the report quote."""
    written_part = mapping(record.get("robots"))
    line = written_part.get("line")
    if line == decision.line and line is not None and quoted:
        rule = written_part.get("rule")
        if rule != decision.line_text:
            return [f"recorded as {said} line {line} ({rule!r}){of}, the snapshot's line "
                    f"{line} is {decision.line_text!r}"]  # fmt: skip
    if line == decision.line or (line is None and unfinished):
        return []
    written = f"line {line}" if line is not None else "no line"
    now = f"line {decision.line}" if decision.line is not None else "no line"
    return [f"recorded as {said} {written}{of}, the snapshot gives {now} "
            f"({decision.explanation})"]  # fmt: skip


def override_differences(robots: RobotsPart, record: dict[str, Any], verdict: Verdict) -> list[str]:
    """An override must be recorded where the run's ``REP_OVERRIDES`` let a request past
    robots.txt's Allow/Disallow (allowed, or refused by a later step), and only there."""
    recorded = robots.overridden
    override = verdict.overridden if isinstance(verdict, (Allowed, Refused)) else None
    if override is not None and not recorded:
        return ["robots.txt disallows it and the run's REP_OVERRIDES let it through, but "
                "the record does not say it was overridden"]  # fmt: skip
    if recorded and override is None:
        return [f"recorded as overridden ({recorded}), but no override of the run's "
                "REP_OVERRIDES covers it"]  # fmt: skip
    written = mapping(record.get("robots"))  # its end as written: one unreadable is said
    ends = text(written.get("override_ends"))
    if override is not None and "override_ends" in written and ends != iso_time(override.ends):
        return [f"recorded as let through by an override ending at {ends or 'no time'}, "
                f"but the run's REP_OVERRIDES ends it at {iso_time(override.ends)}"]  # fmt: skip
    expired = robots.override_expired
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
    index: Documents,
    entry: UrlEntry,
    written: dict[str, Any],
    crawl: str,
    run: RunContext,
    sent: bool,
) -> tuple[tuple[str, ...], str]:
    """The sites whose robots.txt decided a request (docs/audit-trail.md, ``robots``):
    the one its snapshot is of (its URL's origin, or the site its ``Host`` addressed,
    ``addressed``), then its URL's origin when ``also`` names that one's robots.txt
    too; or why they are not those a crawl could have named. A snapshot that no
    ``snapshot`` line describes is taken as the URL's origin's (said on its own). A
    schema 1 run wrote a body's line once (for the first site that served it), and
    named no site addressed: its records name the robots.txt of the ``origin`` an earlier
    release wrote in their ``robots`` part (``written``: as written), which must be their
    URL's origin (a schema 1 crawl read no ``Host``), else of their URL's origin. From
    schema 2 a run writes its own ``snapshot`` line for each body it uses: the snapshots a
    record names are ones its own crawl (``crawl``: its run, or the run a ``JOBDIR``
    resume carries on) announced, not another run's. ``sent``: its request was sent (not
    answered before the verdict)."""
    own, robots = str(origin_of(entry.url) or ""), entry.robots or NO_ROBOTS
    named = text(written.get("origin"))
    if run.schema < 2:  # no Host reading: only its URL's site's robots.txt decided it
        if named and str(origin_of(f"{named}/") or named) != own:
            return (), f"names the robots.txt of {named}, not of its URL's site {own}"
        return (named or own,), ""

    def announced(body: str) -> set[str]:  # what its own crawl announced it for
        return index.crawl_robots_urls.get((crawl, body), set())

    for body in (robots.sha256, robots.also):
        if body and body in index.robots_urls and not announced(body):
            return (), (f"names the robots.txt snapshot {body[:12]}…, which its run "
                        f"{crawl[:8]} did not announce (another run's)")  # fmt: skip
    site, problem = _site(announced(robots.sha256), robots.sha256, own, robots.addressed, named)
    if problem:
        return (), problem
    return _with_also(entry, "also" in written, site, own, announced, run, sent)


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
    entry: UrlEntry, named_also: bool, site: str, own: str,
    announced: Callable[[str], set[str]], run: RunContext, sent: bool,
) -> tuple[tuple[str, ...], str]:  # fmt: skip
    """``site``, then its URL's origin ``own`` when ``also`` names that one's robots.txt
    too (a request sent with a ``Host`` addressing ``site``; ``named_also``: its robots
    part has an ``also``, of any value as written). An ``also`` ``""`` (its
    URL's site's robots.txt given up on as unreachable) lets a request through only when
    the give-up verdict allows (``REP_UNREACHABLE_ACTION`` ``allow``): it disallows
    everything otherwise (SPEC §4). A response a downloader middleware answered before
    the verdict (not ``sent``) names its URL's site's robots.txt only when its crawl had
    it (:meth:`Rederiver._answered_differences` holds it to that)."""
    robots = entry.robots or NO_ROBOTS
    addressed, also = robots.addressed, robots.also
    if not named_also:
        if site == addressed != own and sent:
            return (), (f"sent with a Host addressing {addressed}, but names no "
                        f"robots.txt of its URL's site {own} (also), which decided it "
                        "too")  # fmt: skip
        return (site,), ""
    if not addressed or site != addressed:
        return (), ("names a second robots.txt (also), though it was decided by one "
                    "site's alone")  # fmt: skip
    if not also:  # its URL's site's robots.txt given up on (or not a string): nothing read
        if sent and run.unreachable_action != "allow":
            return (), (f"recorded {entry.fate}, but its URL's site's robots.txt ({own}, also) "
                        "was given up on as unreachable and the run's "
                        "REP_UNREACHABLE_ACTION is not 'allow'")  # fmt: skip
        return (site,), ""
    also_from = announced(also)
    if also_from and f"{own}/robots.txt" not in also_from:
        return (), (f"names as its URL's site's robots.txt (also) the snapshot "
                    f"{also[:12]}… of {sorted(also_from)[0]}, not of {own}")  # fmt: skip
    return (site, own), ""


def foreign(index: Documents, entry: UrlEntry, run: str, origin: str) -> str:
    """Why an item's snapshots are not its own (``""``: they are): each it names
    (robots.txt, tdmrep.json, RSL licenses) announced by its own run (``run``) for the
    document of its own origin, not another origin's or an older run's."""
    own = str(origin_of(entry.url) or "")
    if origin != own:
        return f"item names the robots.txt of {origin}, not of its own origin {own}"
    robots = (entry.robots or NO_ROBOTS).sha256  # "": not had
    named: list[tuple[str, str, str]] = (
        [(RefusedBy.ROBOTS_TXT, robots, f"{own}/robots.txt")] if robots else []
    )
    if entry.tdm:
        named.append((RefusedBy.TDMREP_JSON, entry.tdm, f"{own}{WELL_KNOWN_PATH}"))
    named += [("RSL license", sha, url) for url, sha in (entry.licenses or {}).items() if sha]
    for kind, sha, document in named:
        if not index.announced(run, sha, document):
            return (f"item names {kind} snapshot {sha[:12]}…, which its run "
                    f"{run[:8]} did not announce for {document} (another origin's, "
                    "or another run's)")  # fmt: skip
    return ""
