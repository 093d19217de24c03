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
