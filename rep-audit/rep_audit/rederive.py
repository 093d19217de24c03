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

How a snapshot is read: :mod:`rep_audit.documents`.
"""

from __future__ import annotations

from typing import Any

from rep_audit.documents import Documents, page_license, robots_effect
from rep_audit.pages import (
    page_differences,
    recorded_signal,
    recorded_signals,
    said_key,
    says_something,
)
from rep_audit.requestcheck import decided, held_against, unnamed_documents
from rep_audit.runcontext import RunContext, held_to
from rep_audit.sites import foreign, sites_of
from rep_engine.fetch.lifecycle.shared import given_up_allowing
from rep_engine.fetch.rules import Effect
from rep_engine.records import SENT_FATES, Reason, items, mapping, text, whole
from rep_engine.robotstxt import ALLOW_ALL, RobotsTxt
from rep_engine.trail.read import SnapshotStore
from rep_engine.urls.origins import origin_of
from rep_engine.usage.purpose import UsageSignal
from rep_engine.usage.rsl.document import parse_rsl
from rep_engine.usage.rsl.terms import license_url_of, owned_licenses, rsl_signals
from rep_engine.usage.tdmrep import WELL_KNOWN_PATH
from rep_engine.verdict.decide import TDM, Allowed, Refused, Verdict
from rep_engine.verdict.policy import Before

__all__ = ["Rederiver", "RunContext", "held_to", "robots_effect"]


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
        :func:`~rep_audit.sites.sites_of`). A "no" of those documents is an event
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
