"""What ``audit verify`` prints for a newcomer to read (docs/audit-trail.md, "verify"): a
trail copied without its snapshot folder, the line ``--export`` ends with. And the
quoted agent name of ``audit show``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rep_audit.treeheads import NO_HEAD
from tests.support.tools import audit_tool
from tests.support.trailfactory import write_trail


def test_a_trail_copied_without_its_snapshot_folder_is_one_finding(tmp_path: Path) -> None:
    """One finding for the file as a whole (``file:``, line 0 in JSON), naming the folder,
    not one per snapshot and per record that the missing folder explains."""
    trail = write_trail(tmp_path / "t.jsonl")
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(trail, copy / "t.jsonl")
    status, out = audit_tool("verify", str(copy / "t.jsonl"))
    assert status == 1
    assert out.splitlines()[:-1] == [
        f"file: there is no snapshot folder {copy}/t.jsonl.d (a trail copied without it?): "
        "1 snapshot(s) cannot be checked, nor 3 record(s) re-derived from them",
        NO_HEAD,
    ]
    assert ": 1 problem(s): 6 line(s)" in out.splitlines()[-1]
    status, out = audit_tool("verify", str(copy / "t.jsonl"), "--json")
    [finding] = json.loads(out)["findings"]
    assert finding["line"] == 0 and finding["url"] == ""
    # A folder that is there but lacks a body: that body, per line, as before.
    (copy / "t.jsonl.d").mkdir()
    status, out = audit_tool("verify", str(copy / "t.jsonl"))
    assert status == 1 and len(out.splitlines()) == 6 and "no snapshot folder" not in out


def test_verify_with_an_export_says_how_many_assets_it_checked(tmp_path: Path) -> None:
    trail = write_trail(tmp_path / "t.jsonl")
    export = tmp_path / "export.jsonl"
    assert audit_tool("export", str(trail), "--out", str(export), "--summary", "/dev/null")[0] == 0
    status, out = audit_tool("verify", str(trail), "--export", str(export))
    assert status == 0
    assert out.splitlines()[-1] == f"export {export}: 2 assets match the trail"
    lines = export.read_text().splitlines()
    export.write_text("\n".join(lines[:-1]) + "\n")  # one asset's line removed
    status, out = audit_tool("verify", str(trail), "--export", str(export))
    assert status == 1
    assert out.splitlines()[-1] == f"export {export}: 1 difference(s) from the trail"


def test_show_quotes_the_agent_name(tmp_path: Path) -> None:
    status, out = audit_tool("show", str(write_trail(tmp_path / "t.jsonl")), "http://site.test/")
    assert status == 0
    assert 'robots.txt of http://site.test: no line decided it for "testbot": ' in out
