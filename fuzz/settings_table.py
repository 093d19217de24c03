"""Dump every REP_* setting (name, field, default, help, unit, shown) and what its reader
makes of probe values, and what RepConfig.from_settings says of each probe; run in the
tree before and after to diff. Run: PYTHONPATH=<tree> python fuzz/settings_table.py"""

from __future__ import annotations

from typing import Any

from rep_engine.settings import SETTINGS, RepConfig

PROBES: tuple[Any, ...] = (
    "ture", "true", "True", "1", "0", "false", "off", "yes", 1, 0, 2, -1, 1.5, "1.5", "abc",
    "", " ", None, [], ["a"], {}, {"a": "b"}, "google", "legacy", "drop", "keep", "search",
    "ai-train", "error", "warn", "a,b", "1e9", float("nan"), float("inf"), True, False,
)  # fmt: skip


def said(call: Any, *args: Any) -> str:
    try:
        return repr(call(*args))
    except Exception as error:
        return f"{type(error).__name__}: {error}"


def main() -> None:
    for s in SETTINGS:
        print(s.name, s.field, repr(s.default), repr(s.help), s.unit, repr(s.shown))
        for probe in PROBES:
            print("  read", repr(probe), said(s.read, {s.name: probe}, s.name, s.default))
            got = said(RepConfig.from_settings, {s.name: probe})
            print("  config", repr(probe), got)
    print("defaults", said(RepConfig.defaults))


if __name__ == "__main__":
    main()
