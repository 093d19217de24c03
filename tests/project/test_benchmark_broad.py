"""Smoke test of ``benchmarks/broad.py`` (docs/benchmarks-broad.md) at a small scale, not
timed: one local server answering 17 host names (one origin per fault kind), a crawl
paused by SIGINT and resumed from its JOBDIR, every request's fate checked against the
plan."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.paths import BENCHMARKS

SCRIPT = BENCHMARKS / "broad.py"


def test_broad_benchmark_accounts_for_every_request(tmp_path: Path) -> None:
    figures_file = tmp_path / "broad.json"
    command = [sys.executable, str(SCRIPT), "--origins=17", "--requests=85"]
    # Unreachable origins give up after 3 s, not 10: the same fates, half the wait.
    command += ["--modes=rep", "--unreachable-wait=3", f"--json={figures_file}"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    figures = json.loads(figures_file.read_text())
    rep = figures["modes"]["rep"]
    assert figures["requests"] == 85
    assert rep["reasons"] == ["shutdown", "finished"]  # paused, then resumed to the end
    assert (rep["lost"], rep["twice"], rep["wrong"]) == (0, 0, 0)
    assert rep["served"]["not_allowed_served"] == 0
    # Every origin's robots.txt was asked for; "rules" origins once per crawl process.
    assert rep["served"]["robots_by_kind"]["rules"] in ({"1": 1}, {"2": 1})
    assert rep["stats"]["rep/requests/dropped/forbidden"] > 0
    assert rep["stats"]["rep/requests/dropped/robotstxt_unreachable"] > 0
    assert "all requests accounted for, none let through: yes" in run.stdout


def test_broad_benchmark_with_good_robots_txt_only(tmp_path: Path) -> None:
    """``--kinds rules``: every origin answers a good robots.txt (the like-for-like
    crawl), and still every request's fate is the plan's."""
    figures_file = tmp_path / "broad.json"
    command = [sys.executable, str(SCRIPT), "--origins=6", "--requests=30", "--kinds=rules"]
    command += ["--modes=rep", "--pause-at=0", f"--json={figures_file}"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    rep = json.loads(figures_file.read_text())["modes"]["rep"]
    assert (rep["lost"], rep["twice"], rep["wrong"]) == (0, 0, 0)
    assert rep["served"]["robots_by_kind"] == {"rules": {"1": 6}}  # one download each
    assert "rep/requests/dropped/robotstxt_unreachable" not in rep["stats"]
    assert rep["stats"]["rep/requests/dropped/forbidden"] > 0


def test_broad_benchmark_refuses_an_unknown_kind() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--kinds=rules,nonsense"], capture_output=True, text=True
    )
    assert run.returncode == 2
    assert "--kinds: unknown nonsense" in run.stderr
