"""The counts per origin of a recheck, in arrays (pure): one place per origin in each,
about 50 bytes an origin (a million origins are held at once), each origin numbered by
its name (:class:`~rep_recheck.names.Numbered`: at most
``REP_RECHECK_PARSED_ORIGINS`` names in memory, the others in an SQLite file).
:class:`PerOrigin` reads one origin's counts as an object (:class:`OriginCounts`); the
summary (:mod:`~rep_recheck.summary`) reads the whole arrays.
"""

from __future__ import annotations

import heapq
from array import array
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final

from rep_engine.records import ITEM_STATUSES
from rep_recheck.names import PARSED_ORIGINS, Numbered

#: The array type of a count per origin (4 bytes; made 8 bytes if one outgrows it).
_SMALL: Final = "I"
#: The counts of each origin, one array each.
_COUNTS: Final = (*ITEM_STATUSES, "by_usage", "by_access", "by_policy", "second")


@dataclass(frozen=True)
class OriginCounts:
    """One origin's counts, as read from the arrays
    (:attr:`~rep_recheck.tally.Tally.origins`)."""

    kept: int
    refused: int
    unknown: int
    #: Items refused per purpose.
    purposes: Counter[str]
    #: The signals that removed its items (the first: the one that removed most).
    signals: Counter[str]
    #: Items refused by a usage signal (a purpose's "no"), and by an access rule
    #: (robots.txt's Allow/Disallow, a page's noindex or unavailable_after).
    by_usage: int
    by_access: int

    @property
    def total(self) -> int:
        """Its items."""
        return self.kept + self.refused + self.unknown

    @property
    def statuses(self) -> Counter[str]:
        """Its items by status."""
        return Counter({"kept": self.kept, "refused": self.refused, "unknown": self.unknown})


class PerOrigin(Mapping[str, OriginCounts]):
    """The counts per origin: arrays with one place per origin (its number in
    :attr:`names`), and each origin's signals (the first signal that removed one of its
    items by its place in :attr:`signal_names`, the counts of every signal only for an
    origin removed by two or more)."""

    def __init__(self, held: int = PARSED_ORIGINS, unknown_removed: bool = True) -> None:
        self.names = Numbered(held)
        #: Whether an unknown item is removed (not with ``--keep-unknown``): counted
        #: among an origin's removed items, by its signal ``unknown``.
        self.unknown_removed = unknown_removed
        #: Its items kept, refused, unknown; refused by a usage signal (a purpose's
        #: "no"), by an access rule (robots.txt's Allow/Disallow, a page's noindex or
        #: unavailable_after), by no signal (``REP_PURPOSE_UNKNOWN = "deny"``): by the
        #: name of the count.
        self.counts: dict[str, array[int]] = {name: array(_SMALL) for name in _COUNTS}
        #: Items refused per purpose, by purpose.
        self.purposes: dict[str, array[int]] = {}
        #: Each origin's first signal (its place in :attr:`signal_names` plus 1; 0: none).
        self.first_signal = array(_SMALL)
        #: Each origin's second signal, the same way (its items in ``counts["second"]``;
        #: those of its first: the rest of its removed items).
        self.second_signal = array(_SMALL)
        self.signal_names: list[str] = []
        self._signal_numbers: dict[str, int] = {}
        #: The counts by signal number of the origins removed by three signals or more.
        self.more_signals: dict[int, dict[int, int]] = {}

    @property
    def kept(self) -> array[int]:
        return self.counts["kept"]

    @property
    def refused(self) -> array[int]:
        return self.counts["refused"]

    @property
    def unknown(self) -> array[int]:
        return self.counts["unknown"]

    def number(self, name: str) -> int:
        """``name``'s place in the arrays, made at its first item."""
        number = self.names.number(name)
        if number == len(self.first_signal):
            for counts in (*self.counts.values(), *self.purposes.values()):
                counts.append(0)
            self.first_signal.append(0)
            self.second_signal.append(0)
        return number

    @staticmethod
    def one(table: dict[str, array[int]], name: str, number: int) -> None:
        """One more in ``table[name]`` at ``number`` (the array made 8 bytes a place if it
        outgrows 4)."""
        counts = table[name]
        try:
            counts[number] += 1
        except OverflowError:
            table[name] = counts = array("Q", counts)
            counts[number] += 1

    def purpose(self, name: str) -> None:
        """The counts of refusals for purpose ``name`` made (each origin's 0)."""
        if name not in self.purposes:
            self.purposes[name] = array(_SMALL, [0]) * len(self.first_signal)

    def signal(self, number: int, name: str) -> None:
        """One item of origin ``number`` removed by signal ``name``."""
        code = self._signal_numbers.get(name)
        if code is None:
            code = self._signal_numbers[name] = len(self.signal_names) + 1
            self.signal_names.append(name)
        more = self.more_signals.get(number)
        if more is not None:
            more[code] = more.get(code, 0) + 1
            return
        first = self.first_signal[number]
        if first == 0:
            self.first_signal[number] = code
        elif first != code:
            second = self.second_signal[number]
            if second == 0:
                self.second_signal[number] = code
            if second in (0, code):
                self.one(self.counts, "second", number)
                return
            # a third signal: the counts of each in a dict (the first counted every
            # removed item before this one but the second's)
            seconds = self.counts["second"][number]
            before = self.removed(number) - 1 - seconds
            self.more_signals[number] = {first: before, second: seconds, code: 1}

    def signals_of(self, number: int) -> Counter[str]:
        """Origin ``number``'s removed items by signal, in the order first met."""
        more = self.more_signals.get(number)
        if more is not None:
            return Counter({self.signal_names[c - 1]: n for c, n in more.items()})
        first = self.first_signal[number]
        if not first:
            return Counter()
        removed = self.removed(number)
        second = self.second_signal[number]
        if not second:
            return Counter({self.signal_names[first - 1]: removed})
        seconds = self.counts["second"][number]
        names = self.signal_names
        return Counter({names[first - 1]: removed - seconds, names[second - 1]: seconds})

    def removed(self, number: int) -> int:
        """Origin ``number``'s items removed: refused, and unknown unless kept."""
        unknown = self.unknown[number] if self.unknown_removed else 0
        return self.refused[number] + unknown

    def most_by(self, number: int) -> str:
        """The signal that removed most of origin ``number``'s items (``-``: none)."""
        signals = self.signals_of(number)
        return signals.most_common(1)[0][0] if signals else "-"

    # ------------------------------------------------------------------ the mapping

    def __getitem__(self, name: str) -> OriginCounts:
        number = self.names.find(name)
        if number is None:
            raise KeyError(name)
        purposes = Counter({p: n for p, counts in self.purposes.items() if (n := counts[number])})
        kept, refused, unknown, usage, access, _, _ = (c[number] for c in self.counts.values())
        return OriginCounts(kept, refused, unknown, purposes, self.signals_of(number), usage,
                            access)  # fmt: skip

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    # ------------------------------------------------------------------ the whole arrays

    def having(self, counts: array[int]) -> int:
        """Origins whose count in ``counts`` is not 0."""
        return len(counts) - counts.count(0)

    def refusing_all(self, purpose: str) -> int:
        """Origins every item of which is refused for ``purpose`` (and some is)."""
        counts = self.purposes.get(purpose)
        if counts is None:
            return 0
        return sum(1 for n, k, r, u in zip(counts, self.kept, self.refused, self.unknown,
                                           strict=True) if n and n == k + r + u)  # fmt: skip

    def losing(self, most: int) -> list[tuple[int, str, int]]:
        """The ``most`` origins that lost the most items (refused, or unknown unless kept),
        most first and then by name: (removed, name, number)."""
        removed = list(map(self.removed, range(len(self.refused))))
        top = heapq.nlargest(most, removed)
        if not top or not top[-1]:
            top = [n for n in top if n]
            if not top:
                return []
        least = top[-1]
        above = [n for n, lost in enumerate(removed) if lost > least]
        tied = (n for n, lost in enumerate(removed) if lost == least)
        names = self.names.names_of(above)
        rows = [(removed[n], names[n], n) for n in above]
        # the origins tied at the least removed: the first by name (a few names at once)
        chosen: list[tuple[str, int]] = []
        batch: list[int] = []
        for number in tied:
            batch.append(number)
            if len(batch) >= 10_000:
                chosen = _smallest(chosen, batch, self.names, most - len(rows))
                batch = []
        chosen = _smallest(chosen, batch, self.names, most - len(rows))
        rows += [(least, name, n) for name, n in chosen]
        return sorted(rows, key=lambda row: (-row[0], row[1]))[:most]

    def close(self) -> None:
        """The names' SQLite file removed."""
        self.names.close()


def _smallest(
    chosen: list[tuple[str, int]], batch: list[int], names: Numbered, most: int
) -> list[tuple[str, int]]:
    found = names.names_of(batch)
    return heapq.nsmallest(most, [*chosen, *((found[n], n) for n in batch)])
