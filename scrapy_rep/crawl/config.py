"""The crawl's configuration, read once per crawler (SPEC §5; docs/decisions.md, 'One home per
constant, the configuration read once')."""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from rep_engine.settings import RepConfig

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

V = TypeVar("V")


class PerCrawler(Generic[V]):
    """One value per crawler, kept on the crawler itself (an attribute of its own). A
    ``WeakKeyDictionary`` keyed by the crawler would keep for ever every crawler whose
    value refers back to it (a component that holds its crawler, the stats): here the
    crawler and its value are one cycle, freed with the crawler."""

    def __init__(self, name: str) -> None:
        self._attribute = f"_scrapy_rep_{name}"

    def get(self, crawler: Crawler) -> V | None:
        value: V | None = vars(crawler).get(self._attribute)
        return value

    def __getitem__(self, crawler: Crawler) -> V:
        try:
            value: V = vars(crawler)[self._attribute]
        except KeyError:
            raise KeyError(crawler) from None
        return value

    def __setitem__(self, crawler: Crawler, value: V) -> None:
        vars(crawler)[self._attribute] = value

    def setdefault(self, crawler: Crawler, default: V) -> V:
        value: V = vars(crawler).setdefault(self._attribute, default)
        return value


_CONFIGS: PerCrawler[RepConfig] = PerCrawler("config")


def config_of(crawler: Crawler) -> RepConfig:
    """The ``REP_*`` settings of ``crawler`` (:meth:`RepConfig.from_settings`), read once
    its settings are frozen (every component is built after that; before, as the add-on
    sets defaults, they are read afresh). Raises ``RepSettingError`` if wrong."""
    settings = crawler.settings
    if not getattr(settings, "frozen", False):
        return RepConfig.from_settings(settings)
    config = _CONFIGS.get(crawler)
    if config is None:
        config = _CONFIGS[crawler] = RepConfig.from_settings(settings)
    return config
