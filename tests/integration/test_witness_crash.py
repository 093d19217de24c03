"""A witness keeps its word across a crash (c2sp.org/tlog-witness: "The witness MUST
persist the new checkpoint before responding"): ``rep-audit witness`` run in a child
Python whose wrapper, written here, counts each call that writes its state or its answer
(``os.open``, the state file's ``write``, ``os.fsync``, ``os.replace``, ``os.rename``,
its standard output's ``write``) and kills itself with SIGKILL at call N, for every N. A
log of two runs forked after the first: the witness, holding run 1, is asked to cosign
one fork's run 2 and killed; whatever it printed, it then never cosigns the other fork
(if it answered, it holds what it answered; its state is whole: the old checkpoint or
the new one). And, uncut, its state file and then its folder are synced before the
first byte of its answer, so that a crash of the machine keeps what it answered too."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support import c2sp
from tests.support.recheck import recheck_trail
from tests.support.witnesses import WITNESS, Log, signed_log

#: The child: ``WRAPPER N LOG ARGV``: ``rep-audit ARGV`` with every call that writes the
#: state or the answer written to LOG (its number, its name), killed (SIGKILL) at call N
#: (0: never).
WRAPPER = """
import os, signal, sys
from rep_audit.cli import main

kill_at, log = int(sys.argv[1]), os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_APPEND)
calls, write = [0], os.write


def counted(name, call):
    def counting(*args, **kwargs):
        calls[0] += 1
        write(log, f"{calls[0]} {name} {repr(args[0])[:48] if args else ''}\\n".encode())
        if calls[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return call(*args, **kwargs)
    return counting


class Counted:
    def __init__(self, file, name):
        self.file, self.name = file, name
        self.write = counted(name, self._write)

    def _write(self, data):
        done = self.file.write(data)
        self.file.flush()
        return done

    def __getattr__(self, name):
        return getattr(self.file, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()


for name in ("open", "fsync", "replace", "rename"):
    setattr(os, name, counted(name, getattr(os, name)))
fdopen = os.fdopen
os.fdopen = lambda *args, **kwargs: Counted(fdopen(*args, **kwargs), "state-write")
sys.stdout = Counted(sys.stdout, "answer")
sys.exit(main(sys.argv[3:], sys.stdout, prog="rep-audit"))
"""


def witness_child(log: Log, kill_at: int, request: Path, calls: Path) -> tuple[int, str]:
    """The witness asked ``request`` in a child killed at call ``kill_at``: its exit status
    (-9: killed) and what it printed."""
    argv = ["witness", str(request), "--key", str(log.folder / "witness.pem"), "--name",
            WITNESS, "--state", str(log.folder / "state"), "--log", log.vkey()]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(kill_at), str(calls), *argv],
        capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )  # fmt: skip
    return done.returncode, done.stdout


def test_a_witness_killed_at_any_write_never_cosigns_a_fork_afterwards(tmp_path: Path) -> None:
    log = signed_log(tmp_path)
    assert log.ask(log.request(0))[0] == 0  # the witness holds run 1
    fork = tmp_path / "fork.jsonl"
    shutil.copy(log.trail, fork)
    shutil.copytree(log.trail.with_name(log.trail.name + ".d"), fork.with_name("fork.jsonl.d"))
    key = f"REP_AUDIT_SIGNING_KEY={tmp_path / 'key.pem'}"
    recheck_trail(tmp_path, log.trail, key)  # run 2 of one history,
    recheck_trail(tmp_path, fork, key)  # and of another, from the same run 1
    first = log.heads[0]["size"]
    asked, other = tmp_path / "asked.txt", tmp_path / "other.txt"
    asked.write_text(log.request(first))
    other.write_text(log.request(first, trail=fork))
    assert log.heads[-1]["root"] != log.heads_of(fork)[-1]["root"]
    state = tmp_path / "state"
    before = {path.name: path.read_bytes() for path in state.iterdir()}

    uncut = tmp_path / "uncut.log"
    status, answer = witness_child(log, 0, asked, uncut)
    assert status == 0 and answer.startswith(f"\u2014 {WITNESS} ")
    calls = [line.split(" ")[1] for line in uncut.read_text().splitlines()]
    synced = ["open", "state-write", "fsync", "replace", "open", "fsync"]  # file, then folder
    assert calls[:6] == synced and set(calls[6:]) == {"answer"}, calls
    for kill_at in range(1, len(calls) + 1):
        shutil.rmtree(state)
        state.mkdir()
        for name, data in before.items():
            (state / name).write_bytes(data)
        status, printed = witness_child(log, kill_at, asked, tmp_path / f"cut-{kill_at}.log")
        assert status == -9, (kill_at, status, printed)
        kept = [p.read_text() for p in state.glob("*.checkpoint")]
        assert len(kept) == 1 and kept[0] in (before_text(before), new_text(log)), kept
        if printed:  # it answered: what it answered is what it holds
            assert printed.startswith(f"\u2014 {WITNESS} ") and kept[0] == new_text(log)
        refused, err = asked_as_cosign_asks(log, first, fork)
        if kept[0] == new_text(log):  # what it would have answered is held: the fork refused
            assert refused == 1 and "rewritten" in err, (kill_at, err)
        else:  # nothing answered, nothing held: the fork is the first it cosigns
            assert refused == 0, (kill_at, err)
            assert asked_as_cosign_asks(log, first, log.trail)[0] == 1  # never the other after


def asked_as_cosign_asks(log: Log, old: int, trail: Path) -> tuple[int, str]:
    """The witness (in this process) asked for the last head of ``trail`` from ``old``, and
    again from the size it says it holds, as ``audit cosign`` asks: its exit status and
    what it said."""
    status, out, err = log.ask(log.request(old, trail=trail))
    if status == 1 and out.strip().isdigit():
        status, out, err = log.ask(log.request(int(out), trail=trail))
    return status, err


def before_text(before: dict[str, bytes]) -> str:
    """The checkpoint the witness held before it was asked (run 1's)."""
    (data,) = [data for name, data in before.items() if name.endswith(".checkpoint")]
    return data.decode()


def new_text(log: Log) -> str:
    """The checkpoint the witness holds once it answered (run 2's, of the log's trail)."""
    return c2sp.split(log.heads[-1]["checkpoint"])[0]
