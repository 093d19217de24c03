"""The import path Scrapy settings name (``scrapy_rep.spidermiddlewares.…``): the classes
live in :mod:`scrapy_rep.crawl.spidermiddlewares`."""

from scrapy_rep.crawl.spidermiddlewares import PageDirectivesMiddleware as PageDirectivesMiddleware
