"""Every ``request.meta`` / ``response.meta`` key scrapy_rep reads or writes in a crawl
(docs/reference.md lists the public ones), and Scrapy's own keys it reads or sets.

What goes in meta is small and plain (strings, tuples, JSON-able dicts): a request may
be serialised (``JOBDIR``, scrapy-redis) and copied (``request.replace``, redirects, and
spiders that copy a page's meta into the requests they yield). Never a parsed document
or a cache entry. The per-image record's key is defined by the pure
:mod:`rep_engine.usage.imageusage` (a pure module imports nothing from here) and named here.
"""

from __future__ import annotations

from typing import Final

from rep_engine.usage.imageusage import IMAGE_USAGE_KEY

# ---------------------------------------------------------------------- public

#: ``response.meta``: the page's :class:`~rep_engine.directives.PageDirectives`.
DIRECTIVES: Final = "rep_directives"
#: ``response.meta``: the page's :class:`~rep_engine.usage.purpose.UsageDecision`; under
#: ``REP_PURPOSE_ACTION = "mark"`` also the item field holding it as a dict.
USAGE: Final = "rep_usage"
#: ``request.meta``: follow this request even from a nofollow page or link.
IGNORE_NOFOLLOW: Final = "rep_ignore_nofollow"
#: ``request.meta`` (with ``url``) and item field (with ``urls``): a page's
#: ``noimageai`` for its images.
IMAGE_USAGE: Final = IMAGE_USAGE_KEY
#: Marks our own robots.txt / tdmrep.json downloads (value: the key, an origin string).
ROBOTS_REQUEST: Final = "rep_robotstxt_for"

# ---------------------------------------------------------------------- file results

#: The key of a file's result (``item["files"]`` / ``item["images"]``) that says why the
#: file was refused (a list of sentences).
REFUSED: Final = "rep_refused"
#: The key of a file's result that names what in it could not be read.
UNREADABLE: Final = "rep_unreadable"
#: The item field listing the files refused for the crawl's purposes (not stored):
#: ``item["files"]`` / ``item["images"]`` hold only stored files, as Scrapy's do.
REFUSED_FILES: Final = "rep_refused_files"

# ---------------------------------------------------------------------- private

#: scrapy_rep's own state of a request, one value under one key
#: (:mod:`scrapy_rep.crawl.requeststate`).
STATE: Final = "_rep"
#: A request with ``callback=NO_CALLBACK`` that a callback fetched itself
#: (``engine.download_async``): a page all the same, read and decided as it arrives
#: (:meth:`scrapy_rep.crawl.page.pagestate.PageState.fetching`).
FETCHED_PAGE: Final = "_rep_fetched_page"

# ---------------------------------------------------------------------- Scrapy's own

#: Scrapy's switch: do not obey robots.txt for this request.
DONT_OBEY_ROBOTSTXT: Final = "dont_obey_robotstxt"
#: Scrapy's download slot of a request (crawl-delay applies per slot).
DOWNLOAD_SLOT: Final = "download_slot"
#: Scrapy's switches that keep a response from being retried (``RetryMiddleware``) or
#: followed (``RedirectMiddleware``, ``MetaRefreshMiddleware``): set on a 402's request
#: (:mod:`scrapy_rep.crawl.payment`).
DONT_RETRY: Final = "dont_retry"
DONT_REDIRECT: Final = "dont_redirect"
