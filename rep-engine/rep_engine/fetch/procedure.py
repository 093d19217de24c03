"""One download of a robots.txt (or tdmrep.json): the redirect chain and its outcome.

Pure and sans-I/O (SPEC §4): the caller performs each HTTP request and feeds the answer
in; the procedure says which URL to ask next or what the download came to, with the one
sentence people see in logs, reports and the command-line tools (which are a crawl). The
crawl's middleware drives it over Scrapy's engine::

    procedure = FetchProcedure(ROBOTS_TXT, origin.robots_url)
    step = procedure.start
    while isinstance(step, Follow):
        answer = download(step.url)                    # the caller's I/O
        step = procedure.on_response(answer.status, ...)
    fetched = step                                     # a Fetched

| answer | effect |
|---|---|
| 2xx | parse the body (first 500 KiB) |
| 3xx with a usable ``Location`` | follow, 5 hops at most, any host |
| more hops, a loop, an unusable target | as 404; an RSL license: empty |
| 4xx except 429, 1xx, 3xx without ``Location`` | absent; an RSL license's 3xx: empty |
| 429, 5xx, network error | unreachable: everything disallowed for now |
| refused by another Scrapy component | absent; an RSL license: empty; tdmrep.json: given up |
| an error in scrapy_rep itself | an internal error, named as ours |
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urljoin

from rep_engine.fetch.kinds import DocumentKind
from rep_engine.fetch.rules import (
    MAX_REDIRECTS,
    Effect,
    FailureClass,
    effect_of_status,
    may_follow,
    retry_after_seconds,
)
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES

#: The words of an outcome whose body was cut at 500 KiB (``200 (512,000 bytes, cut at
#: 500 KiB)``), and of one another component stopped before (a project's own
#: ``bytes_received`` handler): the audit trail's snapshot detail says so, and its
#: reader reads such a body as cut (:func:`was_cut`).
CUT: Final = "cut at 500 KiB"
CUT_SHORT: Final = "cut short: the download was stopped"


def was_cut(outcome: str) -> bool:
    """Whether an outcome sentence says the download cut its body."""
    return CUT in outcome or CUT_SHORT in outcome


def cut_before_limit(outcome: str) -> bool:
    """Whether an outcome sentence says the body was cut before 500 KiB, the least a
    crawler reads (RFC 9309 §2.5): a part of what a crawler reads was lost (a recheck
    reads such a document's lines as refusing, never as allowing)."""
    return CUT_SHORT in outcome


@dataclass(frozen=True)
class Follow:
    """Ask for ``url`` next."""

    url: str


@dataclass(frozen=True)
class Fetched:
    """What one download (with its redirects) came to."""

    effect: Effect
    #: One sentence for people: ``200 (1,234 bytes)``, ``404: no robots.txt, everything
    #: allowed``, ``unreachable (TimeoutError: …)``.
    outcome: str
    #: The stat name under ``rep/robotstxt/outcome/``: ``parsed``, ``allow_all``,
    #: ``unreachable``, ``network_error``, ``bad_redirect``, ``redirect_loop``,
    #: ``too_many_redirects``, ``ignored``, ``internal_error``.
    kind: str
    #: The HTTP status of the last answer; ``None`` when there was none.
    status: int | None = None
    #: The body to parse (at most 500 KiB), for ``Effect.PARSE``.
    body: bytes = b""
    #: The body was cut at 500 KiB.
    truncated: bool = False
    cache_control: str | None = None
    #: Seconds the site asked us to wait (``Retry-After``), for 429 and 5xx.
    retry_after: float | None = None
    #: Where the document was found after redirects.
    final_url: str = ""
    #: Why it is unreachable (``Effect.UNREACHABLE`` only): how long its requests are
    #: held depends on it (:meth:`~rep_engine.fetch.rules.Policy.wait_limit`).
    failure: FailureClass | None = None


class FetchProcedure:
    """The redirect chain of one download (SPEC §4, RFC 9309 §2.3.1.2)."""

    def __init__(
        self, document: DocumentKind[Any], url: str, max_redirects: int = MAX_REDIRECTS
    ) -> None:
        self.document = document
        self.url = url
        self.current = url
        self.max_redirects = max_redirects
        self._seen = {url}

    @property
    def start(self) -> Follow:
        """The first request to make."""
        return Follow(self.url)

    def on_response(
        self,
        status: int,
        body: bytes = b"",
        *,
        location: str | None = None,
        cache_control: str | None = None,
        retry_after: str | None = None,
        truncated: bool = False,
    ) -> Follow | Fetched:
        """The answer to the last request: the next URL, or what the download came to."""
        effect = effect_of_status(status, has_location=bool(location))
        if effect is Effect.FOLLOW:
            assert location is not None
            return self._redirect(status, location)
        if effect is Effect.PARSE:
            truncated = truncated or len(body) > MAX_BODY_BYTES
            body = body[:MAX_BODY_BYTES]
            cut = CUT if len(body) == MAX_BODY_BYTES else CUT_SHORT
            size = f"{len(body):,} bytes" + (f", {cut}" if truncated else "")
            return self._fetched(
                effect, f"{status} ({size}{self._via})", "parsed", status,
                body=body, truncated=truncated, cache_control=cache_control,
            )  # fmt: skip
        if effect is Effect.UNREACHABLE:
            return self._fetched(
                effect,
                f"{status}: {self.document.when_unreachable}{self._via}",
                "unreachable",
                status,
                retry_after=retry_after_seconds(retry_after),
                failure=FailureClass.SERVER,
            )
        if 300 <= status < 400 and self.document.when_ignored:
            # A 3xx without a Location: an RSL license that cannot be followed.
            return self._not_followed(status, "redirect without a Location", "bad_redirect")
        what = "no" if 400 <= status < 500 else "no usable"
        return self._fetched(
            Effect.ALLOW_ALL,
            f"{status}: {what} {self.document.name}, {self.document.when_absent}{self._via}",
            "allow_all",
            status,
            cache_control=cache_control,
        )

    def on_network_error(
        self, description: str, failure: FailureClass = FailureClass.OTHER
    ) -> Fetched:
        """DNS, timeout, refused or reset connection, truncated or invalid answer;
        ``failure`` says which, as far as the driver can tell."""
        outcome = f"unreachable ({description})"
        return self._fetched(Effect.UNREACHABLE, outcome, "network_error", failure=failure)

    def on_ignored(self, reason: str) -> Fetched:
        """Another component refused the request: not the site's answer, and no retry can
        change it. Absent, as Scrapy's middleware reads it, unless the kind says otherwise
        (:attr:`~DocumentKind.when_ignored`: docs/purpose-notes.md §9;
        :attr:`~DocumentKind.ignored_gives_up`)."""
        document = self.document
        if document.when_ignored:
            outcome = f"not downloaded ({reason}): {document.when_ignored}"
            return self._fetched(Effect.PARSE, outcome, "ignored")
        words = document.when_unreachable if document.ignored_gives_up else document.when_absent
        return self._fetched(Effect.ALLOW_ALL, f"not downloaded ({reason}): {words}", "ignored")

    def on_internal_error(self, description: str) -> Fetched:
        """A bug in scrapy_rep: held and retried like an unreachable site, but named as ours."""
        outcome = f"scrapy_rep internal error ({description})"
        return self._fetched(
            Effect.UNREACHABLE, outcome, "internal_error", failure=FailureClass.OTHER
        )

    # ------------------------------------------------------------------ internals

    @property
    def _via(self) -> str:
        return "" if self.current == self.url else f", via redirect to {self.current}"

    def _redirect(self, status: int, location: str) -> Follow | Fetched:
        try:
            target = urljoin(self.current, location.strip())
        except ValueError:  # "http://[oops/": a Location that is not a URL
            target = location.strip()
        if not may_follow(target):  # never file:, data:, a broken host… (SPEC §7)
            why = f"redirect to {target[:200]} not followed"
            return self._not_followed(status, why, "bad_redirect")
        if target in self._seen:
            return self._not_followed(status, f"redirect loop at {target[:200]}", "redirect_loop")
        if len(self._seen) > self.max_redirects:
            why = f"more than {self.max_redirects} redirects"
            return self._not_followed(status, why, "too_many_redirects")
        self._seen.add(target)
        self.current = target
        return Follow(target)

    def _not_followed(self, status: int, why: str, kind: str) -> Fetched:
        """A redirect chain that cannot be followed (SPEC §4, §7): as a 404 (absent), or
        for a kind with ``when_ignored`` (an RSL license) as a request another component
        refused (RSL 1.0 robots.txt guide: the terms must be retrieved before the content
        is processed; docs/purpose-notes.md §9)."""
        words = self.document.when_ignored
        if words:
            outcome = f"{status}: {why}: {words}"
            return self._fetched(Effect.PARSE, outcome, kind, status)
        if kind == "too_many_redirects":  # the words of robots.txt's outcome since SPEC §4
            return self._fetched(Effect.ALLOW_ALL, f"{why}: treated as 404", kind, status)
        return self._fetched(Effect.ALLOW_ALL, f"{status}: {why}, treated as 404", kind, status)

    def _fetched(
        self,
        effect: Effect,
        outcome: str,
        kind: str,
        status: int | None = None,
        *,
        body: bytes = b"",
        truncated: bool = False,
        cache_control: str | None = None,
        retry_after: float | None = None,
        failure: FailureClass | None = None,
    ) -> Fetched:
        return Fetched(
            effect, outcome, kind, status, body, truncated, cache_control, retry_after,
            final_url=self.current, failure=failure,
        )  # fmt: skip
