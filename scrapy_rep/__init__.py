"""scrapy_rep: the Robots Exclusion Protocol, completely and correctly, for Scrapy."""

from scrapy_rep.settings import RepConfig, RepSettingError

__all__ = [
    "RepConfig",
    "RepSettingError",
]
