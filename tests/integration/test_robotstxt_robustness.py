"""The robots.txt engine's answers over the corpus are the same in fresh processes with other
``PYTHONHASHSEED`` values (SPEC §1, §7; in one process and on hostile input:
tests/robotstxt/test_robotstxt_robustness.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.corpus import (
    sample_answers,
    sample_files,
)
from tests.support.paths import ROOT

#: The sample's answers in a process of its own (argv: the checkout, the corpus).
SUBPROCESS_SCRIPT = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from tests.support.corpus import sample_answers
files = [Path(name) for name in json.load(sys.stdin)]
json.dump(sample_answers(Path(sys.argv[2]), files), sys.stdout)
"""


@pytest.mark.parametrize("hash_seed", ["0", "4242"])
def test_corpus_answers_are_deterministic_across_processes(
    corpus_dir: Path, hash_seed: str
) -> None:
    files = sample_files(corpus_dir)
    expected = json.loads(json.dumps(sample_answers(corpus_dir, files)))
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    result = subprocess.run(
        [sys.executable, "-c", SUBPROCESS_SCRIPT, str(ROOT), str(corpus_dir)],
        input=json.dumps([str(path) for path in files]),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout) == expected
