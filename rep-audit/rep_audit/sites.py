"""The sites whose robots.txt decided a record's request, and the snapshots a recheck's
item names held to its own run and origin (pure): what each snapshot a record names
was announced for, by whom (:class:`rep_audit.documents.Documents`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rep_audit.documents import Documents
from rep_audit.runcontext import RunContext
from rep_engine.records import SENT_FATES, mapping, text
from rep_engine.urls.origins import origin_of
from rep_engine.usage.tdmrep import WELL_KNOWN_PATH


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
