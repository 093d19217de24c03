"""The import path Scrapy settings name (``scrapy_rep.spidermiddlewares.…``): the classes
live in :mod:`scrapy_rep.crawl.page.spidermiddlewares`."""

from scrapy_rep.crawl.page.spidermiddlewares import (
    PageDirectivesMiddleware as PageDirectivesMiddleware,
)
