"""What every reader of a setting shares: the error that names a setting whose value
cannot be used (SPEC §5), and the part of Scrapy's settings read. Re-exported by
:mod:`scrapy_rep.settings.readers` and :mod:`scrapy_rep.settings`."""

from __future__ import annotations

from typing import Any, Protocol


class RepSettingError(ValueError):
    """A ``REP_*`` (or related Scrapy) setting has a value we cannot use."""


class SettingsLike(Protocol):
    """The part of :class:`scrapy.settings.BaseSettings` we read (keeps this module testable)."""

    def get(self, name: str, default: Any = None) -> Any: ...
