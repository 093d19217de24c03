"""A recheck stopped by Ctrl-C (SIGINT) or SIGTERM (what ``timeout``, systemd, Slurm and
Kubernetes send), in a process of its own, at each phase (docs/recheck.md, "Stopping
it"): while its documents are fetched by a crawl of a local site, while its items are
decided from a WARC, grouped by origin on disk, decided group by group, written back,
and while its outputs are put in place. Each time it says so in one line (no
traceback), exits 130 or 143, leaves every output as it was (or, stopped as they were
put in place, all of them whole), no hidden ``.NAME.*.partial`` file and nothing in
TMPDIR, and its trail's run ended (``audit verify`` passes it and lists the stop).

Before, a SIGTERM killed it at once (partial files and 40 MB of temporary folders left,
the trail's run without its end line), a Ctrl-C in the grouping ended in a traceback
within a traceback, and after a crawl both were ignored (Scrapy's handlers stayed)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest

from rep_audit.verify import verify
from tests.support.localhttp import QuietHandler, serving
from tests.support.paths import checkout_environment
from tests.support.recheck import needs, robots_capture, write_jsonl, write_warc

SIGNALS = [signal.SIGINT, signal.SIGTERM]
ORIGINS = 200


def _outputs(folder: Path) -> list[str]:
    """The recheck's output options, each naming a file of ``folder`` that holds
    ``before``."""
    named = []
    for option in ("out", "removed", "report", "summary"):
        path = folder / f"{option}.txt"
        path.write_bytes(b"before\n")
        named.append(f"--{option}={path}")
    return named


def _stopped(
    command: list[str], folder: Path, signum: int, ready: Any = None
) -> tuple[int, list[str], Path]:
    """``command`` run in ``folder`` with a TMPDIR of its own, stopped by ``signum`` once
    it says ``phase reached`` (or once ``ready``, an event, is set); its exit status,
    its standard error's lines but that one, and its TMPDIR."""
    temporary = folder / "tmp"
    temporary.mkdir()
    env = {**checkout_environment(), "TMPDIR": str(temporary)}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=folder, env=env) as child:  # fmt: skip
        assert child.stderr is not None
        lines: list[str] = []
        reached = threading.Event()

        def read() -> None:
            assert child.stderr is not None
            for line in child.stderr:
                if line.strip() == "phase reached":
                    reached.set()
                else:
                    lines.append(line.rstrip("\n"))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        assert (ready or reached).wait(120), lines
        child.send_signal(signum)
        child.wait(timeout=120)
        reader.join(10)
    return child.returncode, lines, temporary


def _said_once(lines: list[str], signum: int) -> str:
    """The one line that says the stop (none of them a traceback)."""
    stops = [line for line in lines if line.startswith("recheck: stopped by ")]
    assert len(stops) == 1, lines
    assert not any("Traceback" in line or "Error" in line for line in lines), lines
    assert stops[0].startswith(f"recheck: stopped by {signal.Signals(signum).name}")
    assert stops[0].endswith(f"(exit status {128 + signum})")
    return stops[0]


def _left_as_they_were(folder: Path, temporary: Path) -> None:
    """Every output holds ``before``; no hidden file beside them; TMPDIR empty."""
    assert {path.name: path.read_bytes() for path in folder.glob("*.txt")} == {
        f"{option}.txt": b"before\n" for option in ("out", "removed", "report", "summary")
    }
    assert [path.name for path in folder.iterdir() if path.name.startswith(".")] == []
    assert list(temporary.iterdir()) == []


def _ended_by(trail: Path, signum: int) -> None:
    """The trail's last run ended, failed, by the stop; ``audit verify`` passes it and
    lists it."""
    end = json.loads(_last_end(trail))
    assert end["reason"] == "failed"
    assert end["error"] == f"stopped by {signal.Signals(signum).name} while the items were decided"
    result = verify(trail)
    assert result.clean, result.findings
    assert any("failed: stopped by" in str(event) for event in result.events), result.events


def _last_end(trail: Path) -> str:
    return next(line for line in reversed(trail.read_text().splitlines())
                if json.loads(line)["type"] == "end")  # fmt: skip


def _warc_dataset(folder: Path) -> tuple[Path, Path]:
    """A WARC of :data:`ORIGINS` origins' robots.txt and a dataset of two items of each,
    shuffled (its origins in no order: grouped past one origin held)."""
    needs("warcio")
    sites = [f"https://o{n}.example" for n in range(ORIGINS)]
    warc = folder / "robots.warc"
    write_warc(warc, [robots_capture(site, "User-agent: *\nDisallow: /private\n")
                      for site in sites])  # fmt: skip
    urls = [f"{site}/{path}" for path in ("private/1", "open") for site in sites]
    urls = urls[::2] + urls[1::2][::-1]
    dataset = folder / "items.jsonl"
    write_jsonl(dataset, urls)
    return warc, dataset


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
@pytest.mark.parametrize(
    "phase",
    ["reading-warc", "trail-begun", "deciding", "grouping", "deciding-grouped", "writing-back"],
)  # fmt: skip
def test_a_recheck_stopped_while_deciding_stops_cleans_up_and_ends_its_trail(
    tmp_path: Path, signum: int, phase: str
) -> None:
    warc, dataset = _warc_dataset(tmp_path)
    trail = tmp_path / "trail.jsonl"
    grouped = phase in ("reading-warc", "grouping", "deciding-grouped", "writing-back")
    held = "1" if grouped else "100000"  # grouped by origin, or decided in the dataset's order
    command = [sys.executable, "-m", "tests.support.recheckchild", phase, str(dataset),
               "--purpose", "search", "--documents", str(warc), f"--trail={trail}",
               *_outputs(tmp_path), "-s", f"REP_RECHECK_PARSED_ORIGINS={held}"]  # fmt: skip
    status, lines, temporary = _stopped(command, tmp_path, signum)
    assert status == 128 + signum, lines
    said = _said_once(lines, signum)
    assert "no output written, each as it was" in said
    _left_as_they_were(tmp_path, temporary)  # the captures' index (past one URL) too
    if phase == "reading-warc":  # before the trail is opened: none begun
        assert not trail.exists() and "trail" not in said
        return
    assert "the run ends as failed" in said
    _ended_by(trail, signum)


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_recheck_stopped_as_its_outputs_are_put_in_place_puts_them_all(
    tmp_path: Path, signum: int
) -> None:
    """Stopped between two renames of its outputs: half of them new, half old, had the
    stop come at once. The renames end first: every output new, the trail's run
    finished, then the stop said (its status too)."""
    warc, dataset = _warc_dataset(tmp_path)
    trail = tmp_path / "trail.jsonl"
    command = [sys.executable, "-m", "tests.support.recheckchild", "putting-in-place",
               str(dataset), "--purpose", "search", "--documents", str(warc),
               f"--trail={trail}", *_outputs(tmp_path)]  # fmt: skip
    status, lines, temporary = _stopped(command, tmp_path, signum)
    assert status == 128 + signum, lines
    said = _said_once(lines, signum)
    assert "its outputs put in place first: the run is whole" in said
    written = {path.name: path.read_bytes() for path in tmp_path.glob("*.txt")}
    assert all(body != b"before\n" for body in written.values()), written
    assert len(written["report.txt"].splitlines()) == 2 * ORIGINS
    hidden = [path.name for path in tmp_path.iterdir() if path.name.startswith(".")]
    assert hidden == [".recheck-outputs.json"]  # the manifest naming the report, no partial
    assert list(temporary.iterdir()) == []
    assert json.loads(_last_end(trail))["reason"] == "finished"
    assert verify(trail).clean


class _Hanging(QuietHandler):
    """A site whose robots.txt does not answer for a minute."""

    asked: ClassVar[threading.Event] = threading.Event()
    answered: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.asked.set()
        threading.Event().wait(60)
        self.answered.append(self.path)
        self.send(200, b"User-agent: *\nDisallow:\n", {"Content-Type": "text/plain"})


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_recheck_stopped_while_its_documents_are_fetched_stops_at_once(
    tmp_path: Path, signum: int, tool_mode: tuple[str, ...]
) -> None:
    """Stopped while its crawl waits for a robots.txt: the crawl is stopped at once (the
    request under way dropped, never waited for: the site has not answered it when the
    run has ended), nothing is decided or written, the trail never begun."""
    _Hanging.asked.clear()
    _Hanging.answered.clear()
    with serving(_Hanging) as port:
        dataset = tmp_path / "items.jsonl"
        write_jsonl(dataset, [f"http://127.0.0.1:{port}/page"])
        trail = tmp_path / "trail.jsonl"
        command = [sys.executable, "-m", "scrapy_rep", "recheck", str(dataset), "--purpose",
                   "search", f"--trail={trail}", *_outputs(tmp_path), *tool_mode]  # fmt: skip
        status, lines, temporary = _stopped(command, tmp_path, signum, _Hanging.asked)
        assert _Hanging.answered == []  # the run ended first
    assert status == 128 + signum, lines
    assert "no output written, each as it was" in _said_once(lines, signum)
    _left_as_they_were(tmp_path, temporary)
    assert not trail.exists()
