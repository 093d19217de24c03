"""What a tool prints of its crawl (docs/cli.md): a block per robots.txt, a line per URL
and, for a page fetched, what it says and what the crawl does with it, from what the
crawl told (:class:`~scrapy_rep.crawl.commands.toolrun.ToolRun`); the exit status, the
worst of its URLs'."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from scrapy.http import HtmlResponse

from rep_engine.fetch.kinds import ROBOTS_TXT, TDMREP
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.records import NOT_HAD, NOT_KEPT, UrlEntry, describe
from rep_engine.robotstxt import ALLOW_ALL
from rep_engine.robotstxt.useragent import held_names
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import robots_agent
from rep_engine.settings.rules import usage_policy
from rep_engine.trail.terminal import printable
from rep_engine.urls.origins import origin_of
from rep_engine.usage.purpose import PURPOSES, UsageDecision
from rep_engine.verdict.decide import UNCHECKED, Allowed, Refused
from scrapy_rep.checker.exits import EXIT_ALLOWED, EXIT_DISALLOWED, EXIT_UNREACHABLE
from scrapy_rep.checker.report import (
    NOTHING_OBEYED,
    ToolRequest,
    decided,
    google_note,
    held_reason,
    origin_head,
    url_line,
    user_agent_line,
)
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.page.otherdirectives import describe_sources

if TYPE_CHECKING:
    from scrapy.settings import Settings

    from rep_engine.verdict.policy import UsagePolicy
    from scrapy_rep.crawl.commands.toolrun import Asked, ToolRun
    from scrapy_rep.crawl.media.pipelines import FileVerdict


class Printer:
    """What a tool prints of its crawl: a block per robots.txt, a line per URL and, for a
    page fetched, what it says and what the crawl does with it (docs/cli.md)."""

    def __init__(
        self, request: ToolRequest, settings: Settings, config: RepConfig, out: TextIO
    ) -> None:
        self.request = request
        self.config = config
        self.out = out
        self.agent = robots_agent(settings)
        self.names = held_names(self.agent, str(settings.get("USER_AGENT") or ""))
        #: The purposes whose usage signals are listed (a purpose was asked about).
        self.policy: UsagePolicy | None = usage_policy(config) if request.explain_usage else None
        self.profile = config.profile

    def say(self, *lines: str) -> None:
        """Print each line, every character a site could control made visible
        (:func:`~rep_engine.trail.terminal.printable`: a CR, LF or ESC in a header or a meta
        tag prints as an escape, never as a line of its own)."""
        for line in lines:
            print(printable(line), file=self.out)

    def run(self, run: ToolRun) -> int:
        """Print the whole output; the exit status (the worst)."""
        self.say(user_agent_line(self.agent, self.profile, self.names))
        by_origin: dict[str, list[Asked]] = {}
        for asked in run.asked:
            by_origin.setdefault(str(origin_of(asked.url)), []).append(asked)
        if self.request.local is not None:  # one file for every origin
            blocks = [("", [asked for group in by_origin.values() for asked in group])]
        else:
            blocks = list(by_origin.items())
        return max([EXIT_ALLOWED, *(self.block(run, origin, group) for origin, group in blocks)])

    def block(self, run: ToolRun, origin: str, group: list[Asked]) -> int:
        """One robots.txt's block (its head, then a line per URL); its exit code."""
        local = self.request.local
        robots = run.documents.get((ROBOTS_TXT.name, origin))
        code = EXIT_ALLOWED
        if local is not None:
            title, notes, rules = local.title, list(local.notes), local.rules
        else:
            outcome = robots.outcome if robots else f"not fetched ({NOTHING_OBEYED})"
            title = f"{origin}/robots.txt: {outcome}"
            notes, rules = [], (robots.rules if robots and robots.rules else ALLOW_ALL)
            notes += self._unreachable_notes(group)
        origins = dict.fromkeys(str(origin_of(asked.url)) for asked in group)
        documents = [
            f"tdmrep.json {key}{TDMREP.path}: {tdm.outcome}"
            for key in origins
            if (tdm := run.documents.get((TDMREP.name, key))) is not None
        ]
        documents += [
            f"RSL license {url}: {announced.outcome}"
            for url in rules.licenses
            if (announced := run.documents.get((RSL.name, url))) is not None
        ]
        self.say(*origin_head(title, notes, rules, self.agent, documents))
        held = ""
        if robots is not None and _unreachable(group, ROBOTS_TXT.name):
            held = held_reason(robots.status)
        width = max(len(asked.url) for asked in group)
        for asked in group:
            entry = decided(asked.url, UNCHECKED, None) if run.unchecked else asked.entry
            allowed, why = url_line(entry, self.profile, held)
            word = "allowed   " if allowed else "DISALLOWED"
            self.say(f"  {word}  {asked.url:<{width}}  {why}")
            if not allowed:
                code = max(code, EXIT_DISALLOWED)
            elif self.request.pages:
                code = max(code, self.page(asked))
        if _unreachable(group, None):
            code = EXIT_UNREACHABLE
        return code

    def _unreachable_notes(self, group: list[Asked]) -> list[str]:
        """What the crawl does once it gives up on an unreachable robots.txt, under "allow"."""
        if self.config.unreachable_action != "allow" or not _unreachable(group, ROBOTS_TXT.name):
            return []
        if any(isinstance(_verdict(asked.entry), Allowed) for asked in group):
            return ["note: unreachable: the crawl holds its requests, then lets them through "
                    "(REP_UNREACHABLE_ACTION = allow)"]  # fmt: skip
        return ["note: unreachable, and the host cannot be connected to: the crawl gives up "
                "on it after REP_UNREACHABLE_CONNECT_MAX_WAIT and drops its requests, even "
                "with REP_UNREACHABLE_ACTION = allow"]  # fmt: skip

    def page(self, asked: Asked) -> int:
        """What the crawl got for an allowed URL, and what it does with it (its page's
        entry in the words of :func:`~rep_engine.records.describe`); its exit code."""
        hop = asked.hop
        if hop is not None and describe(hop).refused:
            _, why = url_line(hop, self.profile, "")
            self.say(f"      page: redirected to {hop.url}, which is not fetched: {why}",
                     "      => not for this crawl: the redirect is refused")  # fmt: skip
            return EXIT_DISALLOWED
        response = asked.response
        if response is None:
            self.say(f"      page: not fetched ({asked.failure or 'no response'})")
            return EXIT_UNREACHABLE
        directives = response.meta.get(meta.DIRECTIVES)
        where = describe_sources(directives.sources if directives else (), response)
        final = response.url
        moved = f" (redirected to {final})" if final != asked.url else ""
        self.say(f"      page: {response.status}{moved}, directives: {directives} ({where})")
        decision: UsageDecision | None = response.meta.get(meta.USAGE)
        if asked.file is not None:
            decision = asked.file.decision
            self.say(*self._file_lines(asked.file))
        elif self.policy is not None and not isinstance(response, HtmlResponse) and response.body:
            self.say("      file: statements inside files are read for ai-train / ai-input only")
        if self.policy is not None and decision is not None:
            self._usage(decision)
        page = asked.page
        said = describe(page) if page is not None else None
        refused = said.why if said is not None and said.dropped else ""
        if asked.file is not None:
            refused = asked.file.refusal.message if asked.file.refusal is not None else ""
        marked = asked.marked  # the crawl's verdict on its page, its items kept and marked
        if not refused and self.policy is not None and marked is not None:
            self.say(f"      => not for this crawl: {marked.message} (its items are "
                     'kept and marked: REP_PURPOSE_ACTION = "mark")')  # fmt: skip
            return EXIT_DISALLOWED
        if refused:
            self.say(f"      => not for this crawl: {refused}")
            return EXIT_DISALLOWED
        self.say("      => kept" if said is not None and said.kept else f"      => {NOT_KEPT}")
        return EXIT_ALLOWED

    def _file_lines(self, verdict: FileVerdict) -> list[str]:
        reading = verdict.reading
        lines = [f"      file: {reading.format}, {len(reading.signals)} statement(s) inside"]
        lines += [f"      file: unreadable: {problem}" for problem in reading.problems]
        if reading.c2pa == "not read: not installed":
            lines.append("      file: C2PA not read (c2pa-python is not installed)")
        return lines

    def _usage(self, decision: UsageDecision) -> None:
        """Every usage signal about the page and the answer per purpose."""
        assert self.policy is not None
        self.say("      usage signals:" if decision.signals else "      usage signals: none")
        for signal in decision.signals:
            note = google_note(signal, self.profile)
            self.say(f"        {signal.source}  ({_answers(signal.answers)}){note}")
        for purpose in self.policy.purposes:
            by = decision.decided_by(purpose)
            said = f" by {by.source}" if by else ""
            self.say(f"      {purpose}: {decision.verdict(purpose)}{said}")


def _verdict(entry: UrlEntry | None) -> Allowed | Refused | None:
    """The verdict ``entry``'s request was decided with (``None``: none)."""
    return entry.decision[0] if entry is not None and entry.decision else None


def _unreachable(group: list[Asked], kind: str | None) -> bool:
    """Whether a document of ``kind`` (``None``: any) the group's requests were decided
    with could not be had (the crawl gave up on it)."""
    for asked in group:
        verdict = _verdict(asked.entry)
        used = verdict.used if verdict is not None else ()
        if any(entry.unreachable for name, _, entry in used if kind in (None, name)):
            return True
        if kind is None and isinstance(verdict, Refused) and verdict.reason in NOT_HAD:
            return True
    return False


def _answers(answers: tuple[bool | None, ...]) -> str:
    said = [
        f"{purpose} {'yes' if answer else 'no'}"
        for purpose, answer in zip(PURPOSES, answers, strict=True)
        if answer is not None
    ]
    return ", ".join(said) or "says nothing about these purposes"
