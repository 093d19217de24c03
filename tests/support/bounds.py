"""Bounds on the work a block of code does, for the tests of hostile input: an alarm on
this process's CPU time, never a comparison of timings."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


class DidNotFinish(Exception):
    """The block ran past its bound."""


@contextmanager
def finishes_within(seconds: float) -> Iterator[None]:
    """Abort the block with DidNotFinish after ``seconds`` of this process's CPU time
    (ITIMER_PROF, SIGPROF; main thread only). CPU time, not wall time: on a busy machine
    the other processes' turns do not count, so the bound is on the work the code does
    (a wall-clock alarm failed a 0.02 s check at 2 s under a load of 9 on 2 cores).

    The handler raises at whatever bytecode the main thread is running. On CPython
    3.13.0 the backward jump that closes a loop, where the interpreter runs pending signal
    handlers, lies outside the exception-table range of an enclosing ``try``/``with`` of
    the same function, so an exception raised there skips those handlers
    (``pytest.raises`` among them). Keep loops that the alarm should interrupt in a
    function of their own (see :func:`busy_for`): the exception then leaves that frame
    and reaches the caller at its call, which every version covers.
    """
    armed = True

    def alarm(signum: int, frame: object) -> None:
        # A signal that was already pending when the block ended is not raised late.
        if armed:
            raise DidNotFinish(f"did not finish within {seconds} s")

    previous = signal.signal(signal.SIGPROF, alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        armed = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
