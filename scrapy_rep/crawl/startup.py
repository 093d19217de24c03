"""Settings checked before a crawl starts (SPEC §5): every ``REP_*`` value, the booleans
Scrapy reads for us (``ROBOTSTXT_OBEY``), the names (a misspelled ``REP_*`` name:
:mod:`rep_engine.settings.names`), the files the crawl will write
(``REP_AUDIT_FILE``, ``REP_REPORT_FILE``, each a file of its own, apart from the
feeds), and, in a crawl without a Twisted reactor
(``TWISTED_REACTOR_ENABLED = False``), a part of the crawl that needs one. A wrong one
stops the crawl with one line naming the setting and exit status 2 under the ``scrapy``
command, or raises :class:`~rep_engine.settings.readers.RepSettingError` in a program that runs
a crawl itself.

Used by the add-on and by :class:`scrapy_rep.RobotParser` (``ROBOTSTXT_PARSER`` without
the add-on), so both paths stop the same way.

The files a crawl writes: ``REP_AUDIT_FILE``, ``REP_REPORT_FILE`` and the feeds written to
a local file are files of their own (:func:`check_apart`), and the trail and the report
can be written (:func:`check_files`), each raising
:class:`~rep_engine.settings.readers.RepSettingError` naming the setting.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NoReturn, cast
from urllib.parse import urlparse

from rep_audit.treeheads import head_options
from rep_engine.settings import RepConfig, changed_deciding, read_config, settings_in_force
from rep_engine.settings.names import check_names, known_names
from rep_engine.settings.readers import RepSettingError, read_bool
from rep_engine.trail.file import (
    TrailFileError,
    check_folder,
    check_trail,
    check_writable,
    replacing,
    same_file,
    snapshot_dir,
)
from scrapy_rep.checker import EXIT_USAGE
from scrapy_rep.crawl.internals import (
    HTTPX_HANDLER,
    REACTORLESS,
    REACTORLESS_HANDLER,
    exit_command,
    httpx_missing,
    scrapy_command_frame,
)

if TYPE_CHECKING:
    from rep_engine.settings.readers import SettingsLike


def validate(settings: SettingsLike) -> RepConfig:
    """Every ``REP_*`` setting, the names, and what they need installed; the config if all
    is well."""
    try:
        config = read_config(settings)  # the booleans too: Scrapy's getbool would traceback
        name_warnings(settings, config)  # raises for the names that stop the crawl
        _check_installed(config)
        _check_reactor(settings)
        check_apart(settings, config)
        check_files(config)
    except RepSettingError as error:
        stop_at_start(error)
    return config


#: File in ``JOBDIR``: the settings of the crawl it holds, as its first run had them.
SETTINGS_FILE: Final = "scrapy_rep.settings.json"


def check_resumed(settings: SettingsLike, config: RepConfig) -> dict[str, Any] | None:
    """A crawl resumed from ``JOBDIR`` (paused, stopped or killed: Scrapy's queue and seen
    requests carry it on) must decide as it did: a setting that decides requests or pages
    (:data:`~rep_engine.settings.DECIDING`) with another value than the crawl's first
    run's stops it at start, naming the setting and both values. Deleting the file is the
    explicit way to go on under the new values. The first run keeps its settings in
    ``JOBDIR/scrapy_rep.settings.json``; a file there that cannot be read (cut, not
    JSON, not the settings) stops the resume too, naming it: what the crawl ran with is
    not known, so a change cannot be ruled out (read as absent, a crawl paused as
    ``search`` would resume as ``ai-train`` without a word). The settings the crawl first
    ran with (``None``: this is its first run)."""
    directory = settings.get("JOBDIR")
    if not directory:
        return None
    path = Path(str(directory)) / SETTINGS_FILE
    now = settings_in_force(config, settings)
    kept = _kept_settings(path, str(directory))
    if kept is not None:
        changed = changed_deciding(kept, now)
        if changed:
            name, more = changed[0], changed[1:]
            also = f"; {', '.join(more)} changed too" if more else ""
            stop_at_start(
                RepSettingError(
                    f"{name}: the crawl in JOBDIR {directory} ran with "
                    f"{kept[name]!r}, this run has {now.get(name)!r}{also}: "
                    f"resume it with the same settings, or delete {path} to go on under "
                    f"the new ones"
                )
            )
        return kept
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with replacing(path, ".tmp") as file:  # made new: no planted symlink followed
            file.write(json.dumps({"settings": now}).encode())
    except OSError as error:
        stop_at_start(RepSettingError(f"JOBDIR: {path} cannot be written ({error})"))
    return None


def _kept_settings(path: Path, directory: str) -> dict[str, Any] | None:
    """The settings the crawl in ``directory`` (``JOBDIR``) first ran with, from its
    ``path`` (``None``: there is none yet, a crawl's first run); a file that cannot be
    read as them stops the crawl at start, naming it (:func:`check_resumed`)."""
    try:
        body = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:  # unreadable, or not UTF-8
        problem = f"cannot be read ({error})"
    else:
        try:
            kept = json.loads(body)
        except ValueError as error:  # cut, or not JSON
            problem = f"is damaged (not JSON: {error})"
        else:
            if isinstance(kept, dict) and isinstance(kept.get("settings"), dict):
                return cast("dict[str, Any]", kept["settings"])
            problem = "is damaged (no settings object)"
    stop_at_start(
        RepSettingError(
            f"JOBDIR: {path} {problem}: it holds the settings the crawl in JOBDIR "
            f"{directory} ran with, which this run must match; restore it, or delete it to "
            "go on under this run's settings"
        )
    )


def stop_at_start(error: RepSettingError) -> NoReturn:
    """A setting the crawl cannot start with (found by :func:`validate`, or by a
    component as the crawl builds it: a trail another crawl locked after the check):
    one line on stderr and exit status 2 under the ``scrapy`` command; raised in a
    program that runs a crawl itself."""
    if scrapy_command_frame() is None:
        raise error
    print(f"scrapy_rep: error: {error}", file=sys.stderr, flush=True)
    exit_command(EXIT_USAGE)


def name_warnings(settings: SettingsLike, config: RepConfig) -> list[str]:
    """The WARNING lines for the unknown setting names that do not stop the crawl; raises
    :class:`RepSettingError` for those that do (``REP_UNKNOWN_SETTINGS``)."""
    names = list(settings) if isinstance(settings, Iterable) else []
    names += settings_module_names()
    return check_names(names, known_names(scrapy_robotstxt_names()), config.unknown_settings)


def settings_module_names() -> list[str]:
    """The names of the project's settings module (``SCRAPY_SETTINGS_MODULE``, once Scrapy
    has imported it) that are not all upper case: Scrapy reads only upper-case names from
    it, so ``rep_purpose = "ai-train"`` there is silently left out of the settings."""
    module = sys.modules.get(os.environ.get("SCRAPY_SETTINGS_MODULE") or "")
    if module is None:
        return []
    return [name for name in vars(module) if not name.isupper() and not name.startswith("_")]


def scrapy_robotstxt_names() -> list[str]:
    """The ``ROBOTSTXT_*`` settings the running Scrapy defines."""
    from scrapy.settings import default_settings

    return [name for name in dir(default_settings) if name.startswith("ROBOTSTXT_")]


def _check_installed(config: RepConfig) -> None:
    """A Redis URL in ``REP_ROBOTSTXT_CACHE`` needs the redis package."""
    if config.robotstxt_cache == "memory":
        return
    try:
        import redis  # noqa: F401
    except ImportError:
        raise RepSettingError(
            f"REP_ROBOTSTXT_CACHE: {config.robotstxt_cache!r} needs the redis package, which "
            "is not installed: pip install 'redis>=5' (scrapy_rep's redis extra)"
        ) from None


#: The parts a crawl of scrapy_rep's works with that need a Twisted reactor, and so stop a
#: crawl without one (``TWISTED_REACTOR_ENABLED = False``) at start rather than fail on
#: each item or request: (the component setting, the component's import path, what it
#: asks of the reactor). scrapy_rep's own components need none.
NEEDS_A_REACTOR: Final = (
    (
        "ITEM_PIPELINES",
        "scrapy_redis.pipelines.RedisPipeline",
        "it writes each item in Twisted's thread pool (deferToThread)",
    ),
)


def _check_reactor(settings: SettingsLike) -> None:
    """In a crawl without a reactor, a component of :data:`NEEDS_A_REACTOR` (or a
    subclass of one) enabled in its setting stops the crawl, naming both."""
    if not REACTORLESS or read_bool(settings, "TWISTED_REACTOR_ENABLED", True):
        return
    for setting, path, why in NEEDS_A_REACTOR:
        for key, priority in components(settings, setting).items():
            if priority is not None and path in _class_paths(key):
                raise RepSettingError(
                    f"{setting}: {path} needs a Twisted reactor ({why}), and "
                    f"TWISTED_REACTOR_ENABLED = False runs the crawl without one: take it "
                    f"out, or crawl with the reactor"
                )
    _check_reactorless_handler(settings)


def _check_reactorless_handler(settings: SettingsLike) -> None:
    """In a crawl without a reactor, Scrapy's httpx handler downloading ``http`` or
    ``https`` (Scrapy 2.15 to 2.18 do by default) without the httpx library stops the
    crawl: every download would fail, robots.txt first, and each request wait for it."""
    import scrapy

    handlers = components(settings, "DOWNLOAD_HANDLERS")
    for scheme in ("http", "https"):
        handler = handlers.get(scheme, REACTORLESS_HANDLER)
        if handler is None or HTTPX_HANDLER not in _class_paths(handler):
            continue
        if httpx_missing():
            raise RepSettingError(
                f"TWISTED_REACTOR_ENABLED = False: Scrapy {scrapy.__version__} downloads "
                f"{scheme} without a reactor with its httpx handler, and the httpx library "
                f"it needs is not installed: pip install httpx, or crawl with the reactor"
            )


def _class_paths(key: Any) -> set[str]:
    """The import paths of a component setting's key (a path or a class) and of the
    classes it inherits from; nothing for a key that does not load (Scrapy names it)."""
    from scrapy.utils.misc import load_object

    try:
        component = load_object(key) if isinstance(key, str) else key
    except (ImportError, NameError, ValueError, AttributeError):
        return set()
    classes = component.__mro__ if isinstance(component, type) else ()
    return {f"{cls.__module__}.{cls.__qualname__}" for cls in classes}


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
