"""The import path Scrapy settings name (``scrapy_rep.downloadermiddlewares.…``): the classes
live in :mod:`scrapy_rep.crawl.requests.downloadermiddlewares`."""

from scrapy_rep.crawl.requests.downloadermiddlewares import (
    RobotsTxtMiddleware as RobotsTxtMiddleware,
)
