"""Signals sent by scrapy_rep (connect with ``crawler.signals.connect(handler, signal)``).

Scrapy's own ``robots_parsed`` signal is sent too, as by Scrapy's middleware: its
handlers may be async, and the origin's requests wait until every handler has finished.
"""

from __future__ import annotations

#: A robots.txt download of an origin finished (SPEC §4), whatever its outcome, or its
#: robots.txt came from the store (the outcome then says "(from the … cache)").
#: Arguments: ``origin`` (str, e.g. ``"https://example.com"``), ``robots_url`` (str),
#: ``rules`` (:class:`scrapy_rep.RobotsTxt`: parsed, or the allow-all / disallow-all
#: stand-in), ``outcome`` (str, for people: ``"200 (1,234 bytes)"``, ``"404: …"``),
#: ``status`` (int or None) and ``sitemaps`` (tuple of the ``Sitemap:`` URLs).
robotstxt_fetched = object()

#: Another per-origin document than robots.txt was fetched (tdmrep.json, for AI
#: purposes), whatever its outcome. Arguments: ``origin`` (str), ``document`` (its name:
#: ``"tdmrep.json"``), ``url``, ``outcome`` (str, for people) and ``status`` (int or None).
document_fetched = object()

#: A request was taken out of the crawl to wait for its origin's robots.txt: the first
#: download is under way, or robots.txt is unreachable (SPEC §4). Arguments:
#: ``request``, ``origin`` (str).
request_held = object()

#: A held request goes on (its origin's robots.txt is known now). Arguments: ``request``,
#: ``origin`` (str) and ``failures`` (how many robots.txt downloads failed meanwhile;
#: 0 when it only waited for the first download).
request_released = object()

#: A request was not downloaded because of the REP. Arguments: ``request``, ``reason``
#: (a :class:`scrapy_rep.Reason`, a ``str``: ``"forbidden"``,
#: ``"robotstxt_unreachable"``, ``"tdmrep_unreachable"``, ``"purpose"``,
#: ``"spider_closed"``, ``"internal_error"``, ``"nofollow"``, ``"rel_nofollow"``), ``message``
#: (the sentence that is also logged), ``response`` (the page that linked to it, for
#: nofollow; else ``None``) and ``verdict``: the :class:`rep_engine.verdict.decide.Refused` value
#: of every refusal scrapy_rep decided: before the fetch (the document and its version,
#: the line or signal, the agent, the purpose; docs/reference.md), or by the page that
#: linked to it (its ``document`` is ``"page"``: nofollow, rel="nofollow", a noimageai
#: page's image); ``None`` for a request dropped when the spider closed.
request_refused = object()

#: A request robots.txt disallows was let through by an authorized override
#: (``REP_OVERRIDES``): it goes on to its download. Arguments: ``request`` and
#: ``verdict``, the :class:`rep_engine.verdict.decide.Allowed` value whose ``overridden`` is the
#: override (its ``described``: the reason and until when it holds).
request_overridden = object()

#: An item was dropped because of its page's directives (SPEC §6) or because the page is
#: denied for the crawl's purpose (``REP_PURPOSE``). Arguments: ``item``, ``response``,
#: ``reason`` (a :class:`scrapy_rep.Reason`: ``"noindex"``,
#: ``"unavailable_after"`` or ``"purpose"``), ``message``,
#: what said it (``"noindex by header X-Robots-Tag: none"``, ``"noindex by <meta
#: name="robots" content="noindex">"``, ``"ai-train denied by header Content-Usage:
#: train-ai=n"``), ``verdict``, the page's :class:`rep_engine.verdict.decide.Refused` (its
#: ``document`` is ``"page"``) and ``said_by``, the URL of the page that said no: the
#: item's page (``response.url``), or a page its callback fetched itself
#: (``engine.download_async``) before yielding it (docs/behaviour.md).
item_refused = object()


#: A file downloaded by ``FilesPipeline`` / ``ImagesPipeline`` (or a subclass) was held
#: against the crawl's AI purposes (docs/media.md), whatever the outcome; sent once the
#: pipeline knows what became of it. Arguments: ``url``, ``request``, ``item``,
#: ``decision`` (:class:`rep_engine.usage.purpose.UsageDecision` over every signal about
#: the file: the origin's, the response headers', the page's ``noimageai`` and the file's
#: own), ``reading`` (:class:`rep_engine.usage.media.reading.MediaReading`: the file's own
#: statements and what could not be read), ``refusal``
#: (:class:`scrapy_rep.Refused`, reason ``"purpose"``, or ``None``), ``fate`` (``"stored"``,
#: ``"marked"``, ``"refused"``: not stored, or ``"failed"``: the pipeline could not store
#: it) and ``error`` (why it failed, else ``""``).
file_checked = object()

#: A downloaded file is denied for a purpose of the crawl: not stored
#: (``REP_PURPOSE_ACTION = "drop"``) or stored and marked (``"mark"``). Arguments:
#: ``url``, ``request``, ``item``, ``purpose``, ``message`` (``"ai-train denied by XMP
#: plus:DataMining DMI-PROHIBITED"``), ``statement`` (the deciding signal's source, or
#: ``None`` when nothing was said and ``REP_PURPOSE_UNKNOWN = "deny"``) and ``stored``
#: (bool).
file_refused = object()
