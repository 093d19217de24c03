"""The command-line checker's side that needs no Scrapy (``python -m scrapy_rep check``,
and ``scrapy rep-robots`` for what they share): their inputs, read one way; the
per-origin documents downloaded with urllib as a crawl would fetch them; and one line
per URL, decided by the crawl's own :func:`rep_engine.verdict.decide.decide`."""
