"""Whether a benchmark ran on a quiet machine (docs/benchmarks.md, "Reading a figure").

A loaded machine moves a ratio more than a change does: on 2 cores, a crawl without
robots handling ran 1.32× slower beside other work. Every benchmark that reports time
prints the one-minute load average at its start and at its end, and marks its figure
"NOT QUIET" when either is over :data:`QUIET_LOAD`; a target is read only from a quiet
figure. The benchmark's own process counts in the load at its end (one busy core adds
about 1.0 after a minute), so the end is read against :data:`QUIET_LOAD` plus the cores
the benchmark itself keeps busy.
"""

from __future__ import annotations

import os
import statistics
from typing import Final

#: The one-minute load average under which the machine counts as quiet.
QUIET_LOAD: Final = 1.0


def load() -> float:
    """The one-minute load average (0.0 where the platform has none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


class LoadWindow:
    """The load average at a benchmark's start and end."""

    def __init__(self, own_cores: float = 1.0) -> None:
        self.own_cores = own_cores
        self.start = load()
        self.end: float | None = None

    def close(self) -> None:
        self.end = load()

    @property
    def quiet(self) -> bool:
        end = self.end if self.end is not None else load()
        return self.start <= QUIET_LOAD and end <= QUIET_LOAD + self.own_cores

    def line(self) -> str:
        """``load average 0.21 at start, 1.34 at end: quiet`` (or ``NOT QUIET``); before
        :meth:`close`, the start's alone."""
        if self.end is None:
            state = "quiet" if self.start <= QUIET_LOAD else "NOT QUIET"
            return f"load average {self.start:.2f} at start ({state})"
        end = self.end
        verdict = "quiet" if self.quiet else "NOT QUIET: no target may be read from it"
        return (
            f"load average {self.start:.2f} at start, {end:.2f} at end "
            f"(quiet: under {QUIET_LOAD:.1f} at start, {QUIET_LOAD + self.own_cores:.1f} "
            f"at end with the benchmark's own {self.own_cores:g} core(s)): {verdict}"
        )


def spread(ratios: list[float]) -> str:
    """``1.043 (1.012-1.071, 7 rounds)``: the median of per-round ratios and their range."""
    if not ratios:
        return "n/a"
    return (
        f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}, "
        f"{len(ratios)} round{'s' if len(ratios) != 1 else ''})"
    )
