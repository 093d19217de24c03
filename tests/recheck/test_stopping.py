"""A recheck stopped by a signal, in this process (:mod:`rep_recheck.stopping`; each phase
in a process of its own: tests/integration/test_recheck_signals.py): the stop at once,
or once a held section is whole; the signals after the first ignored; a dataset from
standard input leaves no copy whatever stops it."""

from __future__ import annotations

import io
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from rep_recheck.command import EXIT_USAGE, main
from rep_recheck.stopping import Held, Stopped, stopping
from tests.support.recheck import robots_capture, write_warc


def _signalled(signum: int = signal.SIGTERM) -> None:
    """``signum`` sent to this process, and its handler run (it runs between two
    bytecodes of the main thread: a loop gives it some)."""
    os.kill(os.getpid(), signum)
    for _ in range(100):
        time.sleep(0.001)


def test_a_signal_stops_at_once_outside_what_is_held() -> None:
    before = [signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)]
    with stopping(), pytest.raises(Stopped) as stopped:
        _signalled(signal.SIGINT)
    assert (stopped.value.name, stopped.value.status, stopped.value.late) == ("SIGINT", 130, "")
    assert [signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)] == before


def test_a_signal_in_a_held_section_stops_once_it_is_whole_and_no_later_one_stops() -> None:
    """A line of the trail, the outputs put in place: the signal is kept until the section
    ends (nested ones too), then stops the run, saying what was made whole; while the run
    cleans up after it, another signal is no stop."""
    done = []
    with stopping(), pytest.raises(Stopped) as stopped:
        with Held("the outputs whole"):
            with Held():
                _signalled()
                done.append("inner")
            done.append("outer")  # the inner one's end stops nothing: the outer holds
        done.append("after")
    assert done == ["inner", "outer"]
    assert (stopped.value.name, stopped.value.status) == ("SIGTERM", 143)
    assert stopped.value.late == "the outputs whole"
    with stopping():
        with pytest.raises(Stopped):
            _signalled()
        _signalled()  # cleaning up: ignored
        _signalled(signal.SIGINT)
        done.append("cleaned up")
    assert done[-1] == "cleaned up"


def test_a_section_armed_late_holds_from_then_and_the_last_one_ends_the_stops() -> None:
    with stopping(), pytest.raises(Stopped), Held(armed=False):
        _signalled()  # not armed yet: at once
    with stopping():
        with Held("whole", armed=False, last=True) as last:
            last.arm()
        _signalled()  # the run is done: nothing to stop


def test_a_stop_while_standard_input_is_copied_leaves_no_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while standard input is copied to TMPDIR, or a copy no reader can read
    (Parquet without pyarrow, here a reader that fails): the copy, made with
    ``delete=False``, was left in TMPDIR."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temporary))
    body = io.BytesIO(b'{"url": "https://a.example/"}\n')
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(body))

    def stopped(*args: Any) -> None:
        _signalled(signal.SIGINT)

    monkeypatch.setattr("shutil.copyfileobj", stopped)
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nAllow: /\n")])
    args = ["-", "--purpose", "search", "--documents", str(warc), "--no-progress"]
    assert main(args, io.StringIO()) == 130
    assert list(temporary.iterdir()) == []
    monkeypatch.undo()
    monkeypatch.setattr("tempfile.tempdir", str(temporary))
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"a,b\n")))

    def unreadable(*args: Any) -> None:
        from rep_recheck.datasets import DatasetError

        raise DatasetError("-: no reader")

    monkeypatch.setitem(__import__("rep_recheck.datasets").datasets.READERS, "csv", unreadable)
    assert main(args, io.StringIO()) == EXIT_USAGE
    assert list(temporary.iterdir()) == []
