"""The files a crawl writes, checked at start (:func:`scrapy_rep.crawl.startup.validate`):
``REP_AUDIT_FILE``, ``REP_REPORT_FILE`` and the feeds written to a local file are files
of their own (:func:`check_apart`), and the trail and the report can be written
(:func:`check_files`). Each raises :class:`~rep_engine.settings.readers.RepSettingError` naming
the setting."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlparse

from rep_audit.treeheads import head_options
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError
from rep_engine.trail.file import (
    TrailFileError,
    check_folder,
    check_trail,
    check_writable,
    same_file,
    snapshot_dir,
)

if TYPE_CHECKING:
    from rep_engine.settings.readers import SettingsLike


def components(settings: SettingsLike, name: str) -> dict[Any, Any]:
    """A dict setting (``FEEDS``, ``DOWNLOAD_HANDLERS``…) as a dict; ``{}`` when it is none."""
    getdict = getattr(settings, "getdict", None)
    value = getdict(name) if getdict is not None else settings.get(name, None)
    return dict(value) if isinstance(value, dict) else {}


#: A feed URI's printf-style placeholder (``%(name)s``, ``%(batch_id)05d``): the file is
#: named when the feed opens, so it is not compared (Scrapy's feed exporter fills them).
_FEED_PLACEHOLDER: Final = re.compile(r"%\([^)]*\)")


def check_apart(settings: SettingsLike, config: RepConfig) -> None:
    """``REP_AUDIT_FILE``, ``REP_REPORT_FILE`` and the crawl's feeds written to a local
    file (:func:`feed_files`) are files of their own: two of them naming one file (the
    same resolved path, or device and inode) stop the crawl, naming both settings.
    Written into one file, the items and the trail's lines interleave (the chain breaks
    after each item, the feed holds lines that are no items), and the report written at
    the end replaces the other. Checked whether the trail is required or not: the feed
    would be damaged either way."""
    own: list[tuple[str, str, Path]] = []
    if config.audit_file:
        own.append(("REP_AUDIT_FILE", "the trail's lines", Path(config.audit_file)))
    if config.report_file:
        own.append(("REP_REPORT_FILE", "the report", Path(config.report_file)))
    # (as the message names it, what it holds, path) of the files compared so far
    seen = [(named, "the feed's items", path) for named, path in feed_files(settings)]
    for name, what, path in own:
        for other, written, where in seen:
            if same_file(path, where):
                raise RepSettingError(
                    f"{name}: {path} is also {other}: {what} and {written} would be written "
                    "into one file; give each its own file"
                )
        seen.append((f"{name} ({path})", what, path))


def feed_files(settings: SettingsLike) -> list[tuple[str, Path]]:
    """(how the settings name it, path) of each feed of the crawl that Scrapy's feed
    exporter writes to a local file: each key of ``FEEDS`` (``-o``/``-O`` of the
    ``scrapy`` command set it) and ``FEED_URI``, a path or a ``file:`` URI read as
    Scrapy's ``FileFeedStorage`` reads it. A URI with a placeholder (``%(name)s``) or of
    a scheme of another storage (``stdout:``, ``s3://``) is left out."""
    from scrapy.settings import SETTINGS_PRIORITIES, default_settings
    from w3lib.url import file_uri_to_path

    elsewhere = set(default_settings.FEED_STORAGES_BASE) | set(
        components(settings, "FEED_STORAGES")
    )
    elsewhere -= {"", "file"}
    getpriority = getattr(settings, "getpriority", None)
    by_command = getpriority is not None and getpriority("FEEDS") == SETTINGS_PRIORITIES["cmdline"]
    named = "FEEDS (-o/-O)" if by_command else "FEEDS"
    keys = [(named, key) for key in components(settings, "FEEDS")]
    if settings.get("FEED_URI"):
        keys.append(("FEED_URI", settings.get("FEED_URI")))
    found = []
    for setting, key in keys:
        uri = str(key.absolute()) if isinstance(key, Path) else str(key)
        if _FEED_PLACEHOLDER.search(uri) or urlparse(uri).scheme in elsewhere:
            continue
        path = file_uri_to_path(uri) if uri.startswith("file:") else uri
        found.append((f"the feed {uri!r} of {setting}", Path(path)))
    return found


def check_files(config: RepConfig) -> None:
    """The files the crawl will write can be written (and an existing file of the trail is
    a trail, read back to chain on, not locked by another crawl writing it), and the key
    its tree heads are signed with can be read (:func:`head_options`), before its first
    request. A
    trail that is not required (``REP_AUDIT_REQUIRED = False``) is only warned about, by
    the trail itself. One rule for both files (docs/settings.md, ``REP_AUDIT_FILE``
    and ``REP_REPORT_FILE``): each makes its missing folders when it is written, so a missing folder
    passes here if it can be made."""
    checks = []
    if config.audit_file and config.audit_required:
        checks.append(("REP_AUDIT_FILE", Path(config.audit_file), True))
    if config.report_file:  # it turns the report on by itself
        checks.append(("REP_REPORT_FILE", Path(config.report_file), False))
    for name, path, chained in checks:
        try:
            check_writable(path)
            if chained:
                check_trail(path)
                check_folder(snapshot_dir(path))
        except TrailFileError as error:
            raise RepSettingError(f"{name}: {error}") from None
    if config.audit_file:  # the key its heads are signed with, the file they go to
        head_options(config, Path(config.audit_file))
