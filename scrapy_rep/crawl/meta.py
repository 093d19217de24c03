"""Every ``request.meta`` / ``response.meta`` key scrapy_rep reads or writes in a crawl
(docs/reference.md lists the public ones), and Scrapy's own keys it reads or sets.

What goes in meta is small and plain (strings, tuples, JSON-able dicts): a request may
be serialised (``JOBDIR``, scrapy-redis) and copied (``request.replace``, redirects, and
spiders that copy a page's meta into the requests they yield). Never a parsed document
or a cache entry. The per-image record's key is defined by the pure
:mod:`scrapy_rep.usage.imageusage` (a pure module imports nothing from here) and named here.
"""

from __future__ import annotations

from typing import Final

from scrapy_rep.usage.imageusage import IMAGE_USAGE_KEY

# ---------------------------------------------------------------------- public

#: ``response.meta``: the page's :class:`~scrapy_rep.directives.PageDirectives`.
DIRECTIVES: Final = "rep_directives"
#: ``response.meta``: the page's :class:`~scrapy_rep.usage.purpose.UsageDecision`; under
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

#: The name of the document kind a request was handed back to be held for (SPEC §4):
#: set by ``process_request``, taken by ``request_scheduled`` (or, when it comes straight
#: back, by ``process_request`` again, which then waits).
HOLDING: Final = "_rep_holding"
#: The key of the document a request was handed back to be held for (with
#: :data:`HOLDING`; an origin, or an RSL license URL): taken at once, never queued.
HOLD_KEY: Final = "_rep_hold_key"
#: ``((kind name, token), …)``: the entries that decide a request, kept by their
#: documents under these tokens (``OriginDocument.carry``). Set when a request is
#: released (or held for a later document), taken by ``process_request``. A token of
#: another run (a request read back from ``JOBDIR``) names nothing: decided afresh.
DECIDED: Final = "_rep_decided"
#: A token naming the early pass's verdict on an allowed request, kept by the robots.txt
#: middleware (:mod:`scrapy_rep.crawl.requests.decidedearly`): set by the spider middleware's early
#: pass, taken out first thing by ``process_request``. Another run's token names nothing.
DECIDED_EARLY: Final = "_rep_early"
#: ``(url, what the origin's documents said about it)`` (a
#: :class:`scrapy_rep.usage.policy.Before`). The URL is kept because spiders often copy a page's
#: meta into the requests they yield: a child must not inherit its parent's signals.
USAGE_BEFORE: Final = "_rep_usage_before"
#: ``(id, url)`` of the request's audit record (the URL is checked, as above).
AUDIT_ID: Final = "_rep_audit"
#: The URL of a request the report saw scheduled (``REP_REPORT``): a request of the
#: crawl, not an item pipeline's download (checked against the URL, as above).
SCHEDULED: Final = "_rep_scheduled"
#: Set by the response guard on a compressed answer: an ``IgnoreRequest`` after it is
#: the inflation cap.
INFLATING: Final = "_rep_inflating"
#: Bytes of a robots.txt download received so far (the 500 KiB stop).
RECEIVED: Final = "_rep_bytes"
#: The name of the document kind whose fetcher sent the request: only that fetcher
#: counts its bytes (each kind's fetcher listens to ``bytes_received`` while one of its
#: downloads runs, and each byte must count once against its own document's 500 KiB).
FETCHED_AS: Final = "_rep_fetched_as"

# ---------------------------------------------------------------------- Scrapy's own

#: Scrapy's switch: do not obey robots.txt for this request.
DONT_OBEY_ROBOTSTXT: Final = "dont_obey_robotstxt"
#: Scrapy's download slot of a request (crawl-delay applies per slot).
DOWNLOAD_SLOT: Final = "download_slot"
