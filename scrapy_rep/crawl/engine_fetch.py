"""The documented import path of the response guard
(``scrapy_rep.crawl.engine_fetch.RobotsTxtResponseGuard``, as docs/usage.md writes it in
``DOWNLOADER_MIDDLEWARES``): the class lives in
:mod:`scrapy_rep.crawl.documents.engine_fetch`."""

from scrapy_rep.crawl.documents.engine_fetch import GUARD_PRIORITY as GUARD_PRIORITY
from scrapy_rep.crawl.documents.engine_fetch import RobotsTxtResponseGuard as RobotsTxtResponseGuard
