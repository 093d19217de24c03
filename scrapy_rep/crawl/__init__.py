"""The Scrapy side of scrapy_rep, by concern: ``documents/`` (the per-origin documents a
crawl keeps and fetches over the engine), ``requests/`` (the downloader middleware and its
gates), ``page/`` (the spider middleware's page pass), ``media/`` (the media pipelines),
``audit/`` (the audit trail's writer) and ``tools/`` (the ``scrapy rep-robots`` and
``scrapy rep-audit`` commands); the add-on and the few basics they share (request meta keys, the
crawl's configuration, stats, the trail hook, the report) stand here. Everything here may
import Scrapy and Twisted; nothing in the pure modules imports anything from here."""
