"""A crawl's purpose held against a site's AI-usage signals (pure).

The crawl says what it is for (``REP_PURPOSE``: ``search``, ``ai-train``, ``ai-input``,
or several). :class:`UsagePolicy` reads the signals (:mod:`rep_engine.usage.purpose`)
before a request is sent (:meth:`~UsagePolicy.before_fetch`): an explicit "no" for any
purpose of the crawl keeps it from being sent, as a ``Disallow`` does, and unknown never
refuses (the page may still say yes); and after a page is fetched
(:meth:`~UsagePolicy.fetched_signals`, folded by the one page decision,
:func:`rep_engine.verdict.page.decide_page`): a "no" for any purpose drops or marks its
items (``REP_PURPOSE_ACTION``), and an unknown answer counts as allowed unless
``REP_PURPOSE_UNKNOWN = "deny"``. With several purposes, a page must be allowed for every
one of them: the crawl uses it for all of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Final, cast

from rep_engine.usage.purpose import (
    ALL_READINGS,
    PURPOSE_INDEX,
    DirectiveReadings,
    Purpose,
    UsageDecision,
    UsageSignal,
    content_signal_signal,
    content_usage_signals,
    embedded_image_signal,
    page_signals,
    tdmrep_signal,
    usage_decision,
)
from rep_engine.usage.tdmrep import NO_VALUES, TdmEntry, TdmRepFile, TdmValues, resolve

if TYPE_CHECKING:
    from rep_engine.directives import PageDirectives
    from rep_engine.robotstxt import ContentSignals, RobotsTxt
    from rep_engine.robotstxt.aipref import Attached

#: Purposes that TDMRep speaks about (text and data mining: AI training and input).
TDM_PURPOSES: Final = frozenset({"ai-train", "ai-input"})


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a request or a page is refused for the crawl's purpose."""

    purpose: Purpose
    #: The signal that said no; ``None``: nothing was said and ``REP_PURPOSE_UNKNOWN``
    #: is ``"deny"``.
    signal: UsageSignal | None

    @property
    def message(self) -> str:
        """One sentence for logs and the audit trail."""
        if self.signal is None:
            return f"no signal allows {self.purpose} (REP_PURPOSE_UNKNOWN = 'deny')"
        return f"{self.purpose} denied by {self.signal.source}"


@dataclass(frozen=True, slots=True)
class Before:
    """What the origin's documents say about one URL, known before it is fetched."""

    #: robots.txt's signals (``Content-Usage`` rules, ``Content-Signal``).
    signals: tuple[UsageSignal, ...]
    #: The tdmrep.json entry that matches the URL (``None``: none, or no file).
    tdm_entry: TdmEntry | None
    #: Every signal, robots.txt's and the tdmrep.json entry's.
    every: tuple[UsageSignal, ...] = ()

    def decision(self) -> UsageDecision:
        return usage_decision(self.every)


NOTHING_BEFORE: Final = Before((), None)
#: The decision when no signal speaks: every purpose unknown.
NO_SIGNALS: Final = UsageDecision(())


@dataclass(frozen=True)
class UsagePolicy:
    """The crawl's purposes and what to do when a site says no (``REP_PURPOSE*``)."""

    purposes: tuple[Purpose, ...] = ("search",)
    #: ``REP_PURPOSE_UNKNOWN = "deny"``: a purpose nothing speaks about is refused.
    unknown_denies: bool = False
    #: The search directives read as AI opt-outs (``REP_NOARCHIVE_MEANS_NO_AI_TRAIN``,
    #: ``REP_NOARCHIVE_MEANS_NO_AI_INPUT``,
    #: ``REP_NOCACHE_MEANS_NO_AI_TRAIN``, ``REP_NOSNIPPET_MEANS_NO_AI_INPUT``).
    readings: DirectiveReadings = ALL_READINGS

    @classmethod
    def of(
        cls,
        purposes: Iterable[str],
        unknown: str = "allow",
        *,
        readings: DirectiveReadings = ALL_READINGS,
    ) -> UsagePolicy:
        return cls(tuple(cast(Purpose, p) for p in purposes), unknown == "deny", readings)

    @property
    def needs_tdmrep(self) -> bool:
        """Whether tdmrep.json is fetched: TDMRep speaks of AI purposes only."""
        return not TDM_PURPOSES.isdisjoint(self.purposes)

    def before_fetch(
        self,
        rules: RobotsTxt,
        url: str,
        agent: str,
        tdm: TdmRepFile | None = None,
        agents: Sequence[str] = (),
        licenses: Sequence[UsageSignal] = (),
    ) -> Before:
        """The signals of robots.txt (the groups that apply to ``agent``, and to each of
        ``agents``: ``REP_PURPOSE_AGENTS``, whose groups speak for this crawl too) and of
        tdmrep.json about ``url``, with ``licenses``: the signals of the RSL licenses
        its ``License:`` lines name (:func:`rep_engine.usage.rsl.terms.licenses_signals`).
        Call it only for URLs robots.txt allows: "no preferences are implied for
        resources that are disallowed" (aipref attach §3.1)."""
        signals = _robots_signals(rules, url, agent)
        for token in agents:
            signals = _more_robots_signals(signals, rules, url, token)
        if licenses:  # the RSL licenses of its License: lines (purpose-notes §9)
            signals = (*signals, *licenses)
        entry = tdm.lookup(url) if tdm is not None and self.needs_tdmrep else None
        if entry is None:
            return Before(signals, None, signals) if signals else NOTHING_BEFORE
        return Before(signals, entry, (*signals, _entry_signal(entry)))

    def refuse_before(self, before: Before) -> Refusal | None:
        """An explicit "no" known before the fetch (unknown never refuses here). The hot
        path: no decision is built unless a signal says no."""
        every = before.every
        if every:
            for purpose in self.purposes:
                index = PURPOSE_INDEX[purpose]
                for signal in every:
                    if signal.answers[index] is False:
                        return Refusal(purpose, signal)
        return None

    def fetched_signals(
        self,
        before: Before,
        said: Iterable[UsageSignal],
        tdm_header: TdmValues = NO_VALUES,
        tdm_meta: TdmValues = NO_VALUES,
        directives: PageDirectives | None = None,
        image: bool = False,
        embedded_by: str = "",
    ) -> list[UsageSignal]:
        """The one fold of a fetched resource's usage signals, in the order a decision
        lists them: the origin's (``before``), the page's own usage statements (``said``),
        TDMRep after its precedence (file, header, meta), the directives read as AI
        opt-outs, and the ``noimageai`` of the page that showed this image."""
        signals = [*before.signals, *said]
        tdm = resolve(before.tdm_entry, tdm_header, tdm_meta)
        if tdm.reservation is not None:
            signals.append(tdmrep_signal(tdm))
        if directives is not None:
            signals.extend(page_signals(directives, image=image, readings=self.readings))
        if embedded_by:
            signals.append(embedded_image_signal(embedded_by))
        return signals

    def refusal(self, decision: UsageDecision, *, final: bool = True) -> Refusal | None:
        """The first purpose of the crawl that ``decision`` does not allow: one a signal
        says "no" to before one no signal allows (``REP_PURPOSE_UNKNOWN = "deny"``),
        whatever their order, so that a site's "no" is the one named (a page's ``noai``
        with ``search, ai-train``), never "no signal allowed search"."""
        for purpose in self.purposes:
            if decision.allowed(purpose) is False:
                return Refusal(purpose, decision.decided_by(purpose))
        for purpose in self.purposes if final and self.unknown_denies else ():
            if decision.allowed(purpose) is None:
                return Refusal(purpose, None)
        return None


def _robots_signals(rules: RobotsTxt, url: str, agent: str) -> tuple[UsageSignal, ...]:
    """robots.txt's ``Content-Usage`` rules and ``Content-Signal`` for ``agent``."""
    signals: tuple[UsageSignal, ...] = ()
    usage = rules.content_usage(agent)
    if len(usage):
        signals = _attached_signals(usage.attach(url))
    for line in rules.content_signal_lines(agent):  # one signal a line: it names its line
        if _says_something(line):
            signals = (*signals, _content_signal(line))
    return signals


def _more_robots_signals(
    signals: tuple[UsageSignal, ...], rules: RobotsTxt, url: str, token: str
) -> tuple[UsageSignal, ...]:
    """``signals`` and those of the groups of ``token`` (once each: the crawler's own
    group and ``token``'s are often the same ``*`` group)."""
    more = [signal for signal in _robots_signals(rules, url, token) if signal not in signals]
    if not more:
        return signals
    return (*signals, *(_for_token(signal, token) for signal in more))


@lru_cache(maxsize=1024)
def _for_token(signal: UsageSignal, token: str) -> UsageSignal:
    """A signal of ``token``'s group, its source naming the token (for the audit trail)."""
    return UsageSignal(
        signal.vocabulary, signal.answers, f"{signal.source} (for {token})", signal.conditions
    )


def _says_something(signals: ContentSignals) -> bool:
    return (
        signals.search is not None
        or signals.ai_train is not None
        or signals.ai_input is not None
        or signals.use is not None
    )


_content_signal: Final = lru_cache(maxsize=1024)(content_signal_signal)


#: ``id(attached)`` -> (attached, its signals): the matcher hands back the same
#: ``Attached`` object for every URL a rule decides, so its signals are built once (the
#: object is kept, so its id cannot be reused while cached).
_ATTACHED: dict[int, tuple[Attached, tuple[UsageSignal, ...]]] = {}
_ATTACHED_MAX: Final = 4096


def _attached_signals(attached: Attached) -> tuple[UsageSignal, ...]:
    known = _ATTACHED.get(id(attached))
    if known is not None and known[0] is attached:
        return known[1]
    signals = content_usage_signals(attached)
    if len(_ATTACHED) >= _ATTACHED_MAX:
        _ATTACHED.clear()
    _ATTACHED[id(attached)] = (attached, signals)
    return signals


@lru_cache(maxsize=4096)
def _entry_signal(entry: TdmEntry) -> UsageSignal:
    """The signal of a tdmrep.json entry on its own (before the page's header and meta)."""
    return tdmrep_signal(resolve(entry))
