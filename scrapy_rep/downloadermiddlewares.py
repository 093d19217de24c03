"""The import path Scrapy settings name (``scrapy_rep.downloadermiddlewares.…``): the classes
live in :mod:`scrapy_rep.crawl.downloadermiddlewares`."""

from scrapy_rep.crawl.downloadermiddlewares import RobotsTxtMiddleware as RobotsTxtMiddleware
