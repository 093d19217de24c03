"""The crawl's configuration, read once per crawler (SPEC §5; docs/decisions.md, 'One home per
constant, the configuration read once')."""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from scrapy_rep.settings import RepConfig

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

_CONFIGS: WeakKeyDictionary[Crawler, RepConfig] = WeakKeyDictionary()


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
