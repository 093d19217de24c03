"""Signals sent by scrapy_rep (connect with ``crawler.signals.connect(handler, signal)``).

Scrapy's own ``robots_parsed`` signal is sent too, as by Scrapy's middleware.
"""

from __future__ import annotations

#: A robots.txt download of an origin finished (SPEC §4), whatever its outcome.
#: Arguments: ``origin`` (str, e.g. ``"https://example.com"``), ``robots_url`` (str),
#: ``rules`` (:class:`scrapy_rep.RobotsTxt`: parsed, or the allow-all / disallow-all
#: stand-in), ``outcome`` (str, for people: ``"200 (1,234 bytes)"``, ``"404: …"``),
#: ``status`` (int or None) and ``sitemaps`` (tuple of the ``Sitemap:`` URLs).
robotstxt_fetched = object()
