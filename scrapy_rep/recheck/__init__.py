"""A stored collection re-checked (docs/recheck.md, "Re-checking a collection"): which of
its items a site has since said no to, by which signal, line and document (pure).

- :mod:`~scrapy_rep.recheck.datasets`: the items of a dataset (JSON Lines, CSV, Parquet,
  an audit trail or its export), read streaming, and the dataset's own format written
  back for the items kept and those removed;
- :mod:`~scrapy_rep.recheck.documents`: one origin's documents as known now (fetched, or
  captured in a WARC file: :mod:`~scrapy_rep.recheck.warc`), with their evidence;
- :mod:`~scrapy_rep.recheck.rechecker`: each item decided by the crawl's own decisions
  (:func:`scrapy_rep.verdict.decide`, and :func:`scrapy_rep.verdict.page.decide_page` for
  a page fetched again);
- :mod:`~scrapy_rep.recheck.outputs`: the line per item (its evidence:
  :mod:`~scrapy_rep.recheck.evidence`), the counts (:mod:`~scrapy_rep.recheck.tally`)
  and the summary (:mod:`~scrapy_rep.recheck.summary`);
  :mod:`~scrapy_rep.recheck.trail`: the recheck's own audit trail;
- :mod:`~scrapy_rep.recheck.command`: ``python -m scrapy_rep recheck``.

The documents fetched now come from a Scrapy crawl (:mod:`scrapy_rep.crawl.commands.recheck_crawl`),
handed in by the caller: nothing here imports Scrapy.
"""
