"""The ``REP_*`` settings read and validated: :class:`RepConfig` holds a value per row of
:data:`SETTINGS`, :func:`read_config` reads them as a crawl does at start (SPEC §5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from scrapy_rep.settings.page_table import PageSettings
from scrapy_rep.settings.readers import RepSettingError, SettingsLike, read_bool
from scrapy_rep.settings.table import settings_of


@dataclass(frozen=True)
class RepConfig(PageSettings):
    """Every ``REP_*`` setting, validated: the fields of the table's two parts
    (:class:`~scrapy_rep.settings.table.FetchSettings`, then
    :class:`~scrapy_rep.settings.page_table.PageSettings`), with their defaults."""

    @property
    def ledger(self) -> bool:
        """Whether the crawl keeps a ledger of each requested URL's fate: its audit trail,
        its end-of-crawl report or a program reads it (``REP_AUDIT_FILE``, ``REP_REPORT``,
        ``REP_REPORT_FILE``, ``REP_LEDGER``); a crawl with none keeps none, and pays
        nothing."""
        return bool(self.audit_file or self.report or self.report_file or self.keep_ledger)

    @classmethod
    def from_settings(cls, settings: SettingsLike) -> RepConfig:
        """Read and validate every ``REP_*`` setting; raise :class:`RepSettingError` if wrong."""
        values = {s.field: s.read(settings, s.name, s.default) for s in SETTINGS}
        if values["cache_max_ttl"] < values["cache_min_ttl"]:
            raise RepSettingError(
                f"REP_CACHE_MAX_TTL: expected a number of at least "
                f"{values['cache_min_ttl']:g} (REP_CACHE_MIN_TTL), "
                f"got {settings.get('REP_CACHE_MAX_TTL')!r}"
            )
        return cls(**values)

    @classmethod
    def defaults(cls) -> RepConfig:
        return cls.from_settings({})


#: Every ``REP_*`` setting, in the order of docs/settings.md (the docs build writes its
#: table from this one, and each setting needs its section there).
SETTINGS: Final = settings_of(RepConfig)

#: Scrapy's boolean settings that our components read, each with the one boolean reader
#: (:func:`~scrapy_rep.settings.readers.read_bool`): Scrapy's ``getbool`` stops a crawl
#: with a traceback on ``"ture"`` and reads ``2`` as true; a reader of its own would
#: read ``"ture"`` or ``"off"`` as false, robots.txt turned off by a typo.
SCRAPY_BOOLEANS: Final = ("ROBOTSTXT_OBEY",)


def read_config(settings: SettingsLike) -> RepConfig:
    """The settings as a crawl reads them at start: every ``REP_*`` setting validated
    (:meth:`RepConfig.from_settings`) and each of :data:`SCRAPY_BOOLEANS` checked by the
    one boolean reader. The one reader of the crawl (:func:`scrapy_rep.crawl.startup.
    validate`), ``recheck`` and its datatrove step, so that none of them reads a value
    another refuses. Raises :class:`RepSettingError` naming the setting."""
    config = RepConfig.from_settings(settings)
    for name in SCRAPY_BOOLEANS:
        read_bool(settings, name, False)
    return config
