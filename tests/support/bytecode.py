"""What the test session's processes compile, compiled once between them, in a folder of
the session's (:func:`session_folder`, made by the first pytest process, xdist's
controller, removed at its end; the checkout gets no ``__pycache__``):

- the modules the tests' child processes import (crawls, tools, fresh interpreters:
  :func:`share_with_children`), when ``PYTHONDONTWRITEBYTECODE`` would have each compile
  them again;
- the test modules as pytest rewrites their ``assert`` statements
  (:func:`share_rewritten_tests`): each xdist worker collects every test module, and
  rewriting them took 11 s of each worker's 15 s of collection; each now rewrites its
  share and reads the others'.

Neither changes what runs: a compiled module is the one Python or pytest would have
compiled, read back only when its source is unchanged (Python's and pytest's own checks).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

#: The session's folder, as its first process passes it to the others.
SESSION_FOLDER = "REP_SESSION_BYTECODE"


def session_folder(config: pytest.Config) -> Path:
    """The session's folder: made by the first pytest process of the session (removed as
    it ends), the one its xdist workers inherit."""
    folder = os.environ.get(SESSION_FOLDER)
    if folder is None:
        folder = tempfile.mkdtemp(prefix="rep-session-bytecode-")
        os.environ[SESSION_FOLDER] = folder  # for the workers, started next
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    return Path(folder)


def share_with_children(config: pytest.Config) -> None:
    """The processes the tests start compile the modules they import once between them,
    into the session's folder (``PYTHONPYCACHEPREFIX``), where ``PYTHONDONTWRITEBYTECODE``
    would have each compile them again. The pytest processes keep reading the compiled
    files the virtualenv has (a prefix would have each compile those again): the
    variables are set for their children alone (a worker's: xdist's controller starts no
    test's process)."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    folder = session_folder(config) / "children"
    if config.getoption("numprocesses", None) and not hasattr(config, "workerinput"):
        return
    os.environ["PYTHONPYCACHEPREFIX"] = str(folder)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def share_rewritten_tests(config: pytest.Config) -> None:
    """An xdist worker rewrites its share of the test modules (every Nth of those under
    the session's paths, N workers) into the session's folder, and reads every test
    module's rewritten code from there (pytest's ``get_cache_dir``) when another worker
    wrote it first; a module no worker wrote yet it rewrites as before. Pytest's own
    functions (``_rewrite_test``, ``_write_pyc``: private, present since pytest 6) do the
    rewriting and writing, atomically; without them, nothing is shared."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return
    try:
        from _pytest.assertion import rewrite

        rewrite_test, write_pyc, tail = rewrite._rewrite_test, rewrite._write_pyc, rewrite.PYC_TAIL
        state: Any = config.stash[rewrite.assertstate_key]
    except (ImportError, AttributeError, KeyError):
        return
    folder = session_folder(config) / "rewritten"

    def cache_dir(file_path: Path) -> Path:
        return folder.joinpath(*file_path.parts[1:-1])

    rewrite.get_cache_dir = cache_dir
    index, count = int(workerinput["workerid"].removeprefix("gw")), workerinput["workercount"]
    for path in modules_to_rewrite(config)[index::count]:
        pyc = cache_dir(path) / (path.name[:-3] + tail)
        if pyc.exists():
            continue
        try:
            written, code = rewrite_test(path, config)
        except SyntaxError:  # collection says so, as before
            continue
        pyc.parent.mkdir(parents=True, exist_ok=True)
        write_pyc(state, code, written, pyc)


def modules_to_rewrite(config: pytest.Config) -> list[Path]:
    """The test modules and conftest files under the session's paths (its arguments, or
    ``testpaths``), in one order in every worker."""
    found: set[Path] = set()
    for argument in config.args:
        path = Path(config.invocation_params.dir, argument.split("::")[0]).resolve()
        if path.is_file() and path.suffix == ".py":
            found.add(path)
        elif path.is_dir():
            found.update(path.rglob("test_*.py"))
            found.update(path.rglob("conftest.py"))
    return sorted(p for p in found if "__pycache__" not in p.parts)
