"""The lines of a trail as the crawl writes them (rep-engine/rep_engine/trail/lines.py):
the run header names the crawl's scheduler, however the setting names it."""

from __future__ import annotations

from rep_engine.settings import RepConfig
from rep_engine.trail.lines import class_path, run_line


class Scheduler:
    """A scheduler class given as a class (its module: this test's)."""


def test_the_run_header_names_the_scheduler_as_its_import_path() -> None:
    assert class_path(Scheduler) == f"{__name__}.Scheduler"
    assert class_path("scrapy_redis.scheduler.Scheduler") == "scrapy_redis.scheduler.Scheduler"
    assert class_path(None) is None
    settings = {"SCHEDULER": Scheduler}
    header = run_line("0" * 32, RepConfig(), settings, "spider", None, None)
    assert header["scheduler"] == f"{__name__}.Scheduler"
    assert run_line("0" * 32, RepConfig(), {}, "spider", None, None)["scheduler"] is None
