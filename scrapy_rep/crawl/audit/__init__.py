"""The audit trail's writer (``REP_AUDIT_FILE``): one record per requested URL, written
as the crawl runs, with its request, fate and document events. The components feed it
through :mod:`scrapy_rep.crawl.trails`; it builds on ``requests/`` for the usage gate's
verdict. ``scrapy_rep.crawl.audit.AuditTrail``, its path before ``crawl/`` had
subpackages, still names the extension."""

from scrapy_rep.crawl.audit.audit import AuditTrail as AuditTrail
