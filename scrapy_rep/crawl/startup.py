"""Settings checked before a crawl starts (SPEC §5), and the files the crawl will write
(``REP_AUDIT_FILE``, ``REP_REPORT_FILE``): a wrong one stops the crawl with one
line naming the setting and exit status 2 under the ``scrapy`` command, or raises
:class:`~scrapy_rep.settings.RepSettingError` in a program that runs a crawl itself.

Used by the add-on and by :class:`scrapy_rep.RobotParser` (``ROBOTSTXT_PARSER`` without
the add-on), so both paths stop the same way.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scrapy_rep.check import EXIT_USAGE
from scrapy_rep.settings import RepConfig, RepSettingError
from scrapy_rep.trail.file import (
    TrailFileError,
    check_folder,
    check_unlocked,
    check_writable,
    last_line_hash,
    snapshot_dir,
)

if TYPE_CHECKING:
    from scrapy_rep.settings import SettingsLike


def validate(settings: SettingsLike) -> RepConfig:
    """Every ``REP_*`` setting, and what it needs installed; the config if all is well."""
    try:
        config = RepConfig.from_settings(settings)
        _check_installed(config)
        _check_files(config)
    except RepSettingError as error:
        if not _under_scrapy_command():
            raise
        print(f"scrapy_rep: error: {error}", file=sys.stderr, flush=True)
        raise SystemExit(EXIT_USAGE) from None
    return config


def _check_installed(config: RepConfig) -> None:
    """A Redis URL in ``REP_ROBOTSTXT_CACHE`` needs the redis package."""
    if config.robotstxt_cache == "memory":
        return
    try:
        import redis  # noqa: F401
    except ImportError:
        raise RepSettingError(
            f"REP_ROBOTSTXT_CACHE: {config.robotstxt_cache!r} needs the redis package, which "
            "is not installed: pip install 'scrapy_rep[redis]'"
        ) from None


def _check_files(config: RepConfig) -> None:
    """The files the crawl will write can be written (and an existing trail read back to
    chain on, and not locked by another crawl writing it), before its first request. A
    trail that is not required (``REP_AUDIT_REQUIRED = False``) is only warned about, by
    the trail itself."""
    checks = []
    if config.audit_file and config.audit_required:
        checks.append(("REP_AUDIT_FILE", Path(config.audit_file), True))
    if config.report_file:  # it turns the report on by itself
        checks.append(("REP_REPORT_FILE", Path(config.report_file), False))
    for name, path, chained in checks:
        try:
            check_writable(path)
            if chained:
                check_unlocked(path)
                last_line_hash(path)
                check_folder(snapshot_dir(path))
        except TrailFileError as error:
            raise RepSettingError(f"{name}: {error}") from None


def _under_scrapy_command() -> bool:
    """Whether Scrapy's command line (``scrapy.cmdline.execute``) is running us."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "execute" and Path(code.co_filename).parts[-2:] == (
            "scrapy",
            "cmdline.py",
        ):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False
