"""A recheck stopped by a signal (pure; docs/recheck.md, "Stopping it"): Ctrl-C (SIGINT)
or SIGTERM (what ``timeout``, systemd, Slurm and Kubernetes send) stops the run at once,
whatever it does (:func:`stopping`: :class:`Stopped` raised in the main thread), so
that it cleans up as after an error: no output left half-written, no temporary folder,
the trail's run ended. Not in the middle of what must be whole (:class:`Held`: a line of
the trail, the outputs being put in place): the stop then comes once it is. The first
signal stops the run; those that come while it cleans up are ignored (a second Ctrl-C
used to break the cleanup itself: a traceback within a traceback, files left behind).

The crawl that fetches the documents handles the signals its own way while it runs
(:func:`scrapy_rep.crawl.internals.stopping_at_once`: its reactor or loop stopped at
once), then the run stops as here (:func:`stop_now`).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Final, NoReturn

#: The signals that stop a recheck.
SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)


class Stopped(KeyboardInterrupt):
    """The run stopped by signal ``signum`` (a :class:`KeyboardInterrupt`: code that
    cleans up after Ctrl-C cleans up after it too)."""

    def __init__(self, signum: int, late: str = "") -> None:
        super().__init__(signum)
        self.signum = signum
        #: What was made whole before it stopped (``""``: nothing had to be).
        self.late = late
        #: What became of the trail's run (``""``: none was begun), said by who ended it.
        self.trail = ""

    @property
    def name(self) -> str:
        """``SIGINT``, ``SIGTERM``."""
        return signal.Signals(self.signum).name

    @property
    def status(self) -> int:
        """The exit status, by the shells' convention: 128 and the signal's number (130
        for SIGINT, 143 for SIGTERM)."""
        return 128 + self.signum


class _State:
    """The signal that stops the run (``0``: none yet), the sections under way it waits
    for, and whether :class:`Stopped` was raised."""

    signum = 0
    held = 0
    raised = False


_STATE: Final = _State()
#: What :attr:`_State.signum` holds once the run is done: no signal is a stop then.
_DONE: Final = -1


def stop_now(signum: int, late: str = "") -> NoReturn:
    """The run stops by ``signum``: :class:`Stopped` raised, and any later signal ignored."""
    _STATE.signum, _STATE.raised = signum, True
    raise Stopped(signum, late)


def _stop(signum: int, frame: FrameType | None) -> None:
    """The handler of :data:`SIGNALS`: the first stops the run, at once or once the
    sections under way are whole (:class:`Held`); the others are ignored."""
    if _STATE.signum:
        return
    _STATE.signum = signum
    if not _STATE.held:
        stop_now(signum)


@contextmanager
def stopping() -> Iterator[None]:
    """While in it, :data:`SIGNALS` stop the run (:class:`Stopped`); the handlers before
    restored after. Only in the main thread, which alone receives signals (a program
    that runs a recheck in another keeps its own handling)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = [(number, signal.signal(number, _stop)) for number in SIGNALS]
    _STATE.signum, _STATE.held, _STATE.raised = 0, 0, False
    try:
        yield
    finally:
        for number, handler in previous:
            signal.signal(number, handler)


class Held:
    """A section a stop waits for (``with Held():``), from the start or from
    :meth:`arm` on: a signal that comes in it stops the run once it ends, as
    :class:`Stopped` whose ``late`` is ``done`` (what was made whole). ``last``: the run
    ends with it; the signals after it are ignored (it has nothing left to stop)."""

    def __init__(self, done: str = "", armed: bool = True, last: bool = False) -> None:
        self.done = done
        self.last = last
        self.armed = False
        if armed:
            self.arm()

    def arm(self) -> None:
        """From now on, a stop waits for the end of the section."""
        if not self.armed:
            self.armed = True
            _STATE.held += 1

    def __enter__(self) -> Held:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: TracebackType | None
    ) -> None:
        if not self.armed:
            return
        self.armed = False
        _STATE.held -= 1
        if kind is None and not _STATE.held and _STATE.signum and not _STATE.raised:
            stop_now(_STATE.signum, self.done)
        if self.last and kind is None:
            _STATE.raised = True  # so taken for a stop said: the signals after it ignored
            _STATE.signum = _STATE.signum or _DONE
