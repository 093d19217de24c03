"""The audit trail's writer (``REP_AUDIT_FILE``): one record per requested URL, written as
the crawl runs, with its request, fate and the document versions that decided it."""
