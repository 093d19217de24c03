"""``python -m tests.support.recheckchild PHASE ARGV…``: ``python -m scrapy_rep recheck
ARGV`` in a process of its own that says ``phase reached`` on standard error when it
reaches PHASE, and waits there (until a signal comes, at most a minute), for the tests
that stop a recheck by a signal at each phase (tests/integration/test_recheck_signals.py).

A phase is a call of one of the recheck's functions, the Nth (:data:`PHASES`): the
WARC's tenth capture read (before the trail is opened), the trail's run begun (its run
line written, its setting lines not yet), the first item decided (from a WARC, in the
dataset's order), the third chunk of items grouped by origin on disk, the first group
decided, the third item written back in the dataset's order, the second output put in
place (one renamed, the others not yet). Its chunks are of 8 items and its groups of
16, so that a few hundred items take the grouped path a million do.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Final

from rep_recheck import captures, datasets, files, grouping, names, rechecker, trail
from rep_recheck.stopping import _STATE

#: Each phase: the object, the name of its function, the call that reaches it.
PHASES: Final[dict[str, tuple[Any, str, int]]] = {
    "reading-warc": (captures, "_split_record", 10),
    "trail-begun": (trail.lines, "setting_lines", 1),
    "deciding": (rechecker.Rechecker, "decide", 1),
    "grouping": (grouping.Grouped, "add", 3),
    "deciding-grouped": (grouping.Grouped, "_store", 1),
    "writing-back": (trail.RecheckTrail, "replay", 3),
    "putting-in-place": (files, "_kept", 2),
}


def wait_in(phase: str) -> None:
    """PHASE's function made to say ``phase reached`` at its call and wait there."""
    owner, name, at = PHASES[phase]
    original = getattr(owner, name)
    calls = [0]

    def waiting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == at:
            print("phase reached", file=sys.stderr, flush=True)
            deadline = time.monotonic() + 60
            while not _STATE.signum and time.monotonic() < deadline:
                time.sleep(0.01)  # a signal stops the run here, or once what is held is whole
        return original(*args, **kwargs)

    setattr(owner, name, waiting)


if __name__ == "__main__":
    from scrapy_rep.__main__ import main

    datasets.CHUNK_ITEMS, grouping.GROUP_ITEMS = 8, 16
    names.PER_PARSED = 1  # type: ignore[misc]  # its names and URLs held as its origins
    wait_in(sys.argv[1])
    sys.exit(main(["recheck", *sys.argv[2:]]))
