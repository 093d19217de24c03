"""benchmarks/house.py counts what it says it counts, on a small tree made here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

HOUSE = Path(__file__).resolve().parents[2] / "benchmarks" / "house.py"


def _house():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("house", HOUSE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_statements_long_functions_and_cycles_of_a_small_tree(tmp_path: Path) -> None:
    house = _house()
    engine = tmp_path / "rep-engine" / "rep_engine"
    engine.mkdir(parents=True)
    (engine / "__init__.py").write_text('"""Doc."""\nfrom rep_engine import a\n')
    body = "\n".join(f"    x{i} = {i}" for i in range(51))
    (engine / "a.py").write_text(f"import rep_engine.b\n\n\ndef long():\n{body}\n")
    (engine / "b.py").write_text("def f():\n    from rep_engine import a\n    return a\n")
    for folder in ("rep-audit/rep_audit", "rep-recheck/rep_recheck", "scrapy_rep"):
        (tmp_path / folder).mkdir(parents=True)
    figures = house.measure(tmp_path)
    # __init__: docstring + import; a: import + def + 51 assignments; b: def + import + return
    assert figures["statements"] == {"engine": 2 + 53 + 3, "audit": 0, "recheck": 0, "add-on": 0}
    assert figures["long_functions"] == [(52, "rep-engine/rep_engine/a.py:long")]
    assert figures["import_cycles"] == [["rep_engine.a", "rep_engine.b"]]


def test_each_capability_counts_its_modules_and_leaves_out_the_others(tmp_path: Path) -> None:
    """A folder counts every module under it, a module alone its own statements, a module
    left out none; the ratio and the yardstick are the anchor's figure's."""
    house = _house()
    robots = tmp_path / "rep-engine" / "rep_engine" / "robotstxt"
    (robots / "deep").mkdir(parents=True)
    (robots / "__init__.py").write_text('"""Doc."""\n')
    (robots / "deep" / "a.py").write_text("x = 1\ny = 2\n")
    (robots / "aipref.py").write_text("left = 'out'\n" * 7)
    commands = tmp_path / "scrapy_rep" / "crawl" / "commands"
    commands.mkdir(parents=True)
    (commands / "a.py").write_text("def f():\n    return 1\n")
    (tmp_path / "scrapy_rep" / "check.py").write_text("import sys\n")
    (tmp_path / "scrapy_rep" / "other.py").write_text("not_a_tool = 1\n" * 5)
    found = house.capabilities(tmp_path)
    assert found["robots.txt parse/match/explain"]["statements"] == 3
    tools = found["tools"]
    assert tools["statements"] == 3  # def + return, import; other.py is no tool's
    assert tools["anchor_statements"] == 364 and tools["yardstick"] == 910
    assert tools["ratio"] == round(3 / 364, 2) and tools["met"] is True
    assert found["WARC captures"]["statements"] == 0
