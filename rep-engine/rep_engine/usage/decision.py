"""A usage signal and the decision across signals (purpose notes): :class:`UsageSignal`
is one statement mapped onto the purposes; :class:`UsageDecision` folds a resource's
signals, any explicit "no" winning, then any "yes", else unknown. Values and their fold
only: :mod:`rep_engine.usage.purpose` reads the signals and re-exports these names."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal

from rep_engine.robotstxt._parser import USE_LEVELS
from rep_engine.usage._purpose_table import PURPOSE_INDEX, PURPOSES, Answers, Purpose, Vocabulary


def _index(purpose: str) -> int:
    try:
        return PURPOSE_INDEX[purpose]
    except (KeyError, TypeError):
        raise ValueError(f"unknown purpose {purpose!r}; expected one of {PURPOSES}") from None


def any_no_wins(answers: Iterable[bool | None]) -> tuple[bool | None, int | None]:
    """The one merge of answers about one purpose, in order: the first explicit "no"
    wins, else the first "yes", else unknown (``None``); and the position of the answer
    that decided (the reading that loses no "no": SPEC, docs/purpose-notes.md)."""
    result: bool | None = None
    by: int | None = None
    for position, answer in enumerate(answers):
        if answer is False:
            return False, position
        if answer and result is None:
            result, by = True, position
    return result, by


@dataclass(frozen=True, slots=True)
class UsageSignal:
    """One statement a site made about one resource, mapped onto the purposes."""

    vocabulary: Vocabulary
    answers: Answers
    #: Where it was found: ``robots.txt line 12: Content-Usage: train-ai=n``,
    #: ``header Content-Usage: ...``, ``tdmrep.json entry 2 (location "/books/*")``,
    #: ``<meta name="robots" content="noai">``.
    source: str
    #: Conditions on use the signal states besides its answers, such as Content-Signal's
    #: ``use=reference`` (docs/purpose-notes.md §2): carried with the decision, never an
    #: answer about a purpose.
    conditions: tuple[str, ...] = ()

    def answer(self, purpose: Purpose) -> bool | None:
        """``True`` allowed, ``False`` denied, ``None`` says nothing about ``purpose``."""
        return self.answers[_index(purpose)]

    def __str__(self) -> str:
        return self.source

    def to_dict(self) -> dict[str, Any]:
        """Compact JSON form: vocabulary, the purposes it answers, source."""
        answered = {p: a for p, a in zip(PURPOSES, self.answers, strict=True) if a is not None}
        found: dict[str, Any] = {"v": self.vocabulary, "a": answered, "src": self.source}
        if self.conditions:
            found["c"] = list(self.conditions)
        return found


UsageAnswer = Literal["allowed", "denied", "unknown"]


class UsageDecision:
    """For each purpose: allowed, denied or unknown (:func:`any_no_wins`), the signal that
    decided (the first such one in the order given), and every signal considered."""

    __slots__ = ("_answers", "_by", "conditions", "signals")

    def __init__(self, signals: Iterable[UsageSignal]) -> None:
        self.signals = tuple(signals)
        merged = [any_no_wins(s.answers[index] for s in self.signals) for index in range(3)]
        self._answers: Answers = (merged[0][0], merged[1][0], merged[2][0])
        self._by = tuple(by for _, by in merged)
        #: The conditions on use of its signals (``("use=reference",)``), the most
        #: restrictive ``use=`` level when several signals state one; they decide no
        #: purpose (docs/purpose-notes.md §2).
        self.conditions = _conditions(self.signals)

    def allowed(self, purpose: Purpose) -> bool | None:
        """``True`` allowed, ``False`` denied, ``None`` unknown."""
        return self._answers[_index(purpose)]

    def verdict(self, purpose: Purpose) -> UsageAnswer:
        answer = self._answers[_index(purpose)]
        return "unknown" if answer is None else "allowed" if answer else "denied"

    def decided_by(self, purpose: Purpose) -> UsageSignal | None:
        """The signal that gave the answer for ``purpose`` (``None`` when unknown)."""
        position = self._by[_index(purpose)]
        return None if position is None else self.signals[position]

    def __repr__(self) -> str:
        shown = ", ".join(f"{p}={self.verdict(p)}" for p in PURPOSES)
        return f"<UsageDecision {shown} signals={len(self.signals)}>"

    def __str__(self) -> str:
        parts = []
        for purpose in PURPOSES:
            signal = self.decided_by(purpose)
            where = f" by {signal.source}" if signal is not None else ""
            parts.append(f"{purpose} {self.verdict(purpose)}{where}")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """Compact JSON audit record: ``a`` the answer per purpose (true / false /
        null), ``by`` the index in ``s`` of the deciding signal per decided purpose,
        ``s`` the signals considered (see :meth:`UsageSignal.to_dict`)."""
        found: dict[str, Any] = {
            "a": dict(zip(PURPOSES, self._answers, strict=True)),
            "by": {p: i for p, i in zip(PURPOSES, self._by, strict=True) if i is not None},
            "s": [signal.to_dict() for signal in self.signals],
        }
        if self.conditions:
            found["c"] = list(self.conditions)
        return found


def _conditions(signals: tuple[UsageSignal, ...]) -> tuple[str, ...]:
    """The signals' conditions, once each; of several ``use=`` levels the most
    restrictive (Cloudflare orders them "from least to most permissive")."""
    found: list[str] = []  # a loop, not a generator: a decision per page
    for signal in signals:
        for condition in signal.conditions:
            if condition not in found:
                found.append(condition)
    uses = [c for c in found if c.startswith("use=")]
    if len(uses) > 1:
        strictest = min(uses, key=lambda c: _USE_RANK.get(c[4:], len(USE_LEVELS)))
        found = [c for c in found if not c.startswith("use=") or c == strictest]
    return tuple(found)


_USE_RANK: Final = {level: rank for rank, level in enumerate(USE_LEVELS)}


def usage_decision(signals: Iterable[UsageSignal]) -> UsageDecision:
    """Combine the signals of one resource (see :class:`UsageDecision`)."""
    return UsageDecision(signals)


def allowed(signals: Iterable[UsageSignal], purpose: Purpose) -> bool | None:
    """The answer for one purpose without building a decision (the hot path)."""
    index = _index(purpose)
    return any_no_wins(signal.answers[index] for signal in signals)[0]
