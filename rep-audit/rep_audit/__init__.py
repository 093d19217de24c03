"""rep_audit: the audit trail's tools (read, verify, show, list, summary, report, export,
repair), pure, on the trail format of :mod:`rep_engine.trail`; no Scrapy
(``python -m rep_audit``, the ``rep-audit`` script, ``python -m scrapy_rep audit`` and
``scrapy rep-audit`` run the same :mod:`rep_audit.cli`)."""

__version__ = "0.1.0"
