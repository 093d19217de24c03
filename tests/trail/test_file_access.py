"""A file written under a temporary name is made new: no path already at the name drawn
(a symlink, even one to nowhere) is opened, truncated or replaced."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rep_engine.trail import file as trail_file
from rep_engine.trail.file import create_new, link_new, replacing


def test_a_name_taken_by_a_symlink_is_drawn_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn = iter(["taken", "free"])
    monkeypatch.setattr(trail_file.secrets, "token_hex", lambda _: next(drawn))
    outside = tmp_path / "outside"
    (tmp_path / ".out.taken.partial").symlink_to(outside)  # to nowhere: O_CREAT made it
    descriptor, path = create_new(tmp_path, ".out.", ".partial")
    os.close(descriptor)
    assert path == tmp_path / ".out.free.partial" and path.is_file() and not path.is_symlink()
    assert not outside.exists()


def test_a_folder_whose_names_are_all_taken_is_one_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trail_file.secrets, "token_hex", lambda _: "same")
    (tmp_path / ".out.same.partial").write_bytes(b"mine\n")
    with pytest.raises(FileExistsError, match="no new file"):
        create_new(tmp_path, ".out.", ".partial")
    with pytest.raises(FileExistsError, match="no new file"):
        link_new(tmp_path / ".out.same.partial", ".out.", ".partial")
    assert (tmp_path / ".out.same.partial").read_bytes() == b"mine\n"


def test_replacing_puts_the_file_in_place_whole_or_leaves_the_target(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_bytes(b"before\n")
    with pytest.raises(RuntimeError), replacing(target) as file:
        file.write(b"half")
        raise RuntimeError("stopped")
    assert target.read_bytes() == b"before\n"
    assert sorted(os.listdir(tmp_path)) == ["state.json"]  # no temporary file left
    with replacing(target) as file:
        file.write(b"after\n")
    assert target.read_bytes() == b"after\n"
    assert sorted(os.listdir(tmp_path)) == ["state.json"]
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
