"""rep_recheck: a stored collection re-checked (docs/recheck.md, "Re-checking a
collection"): which of its items a site has since said no to, by which signal, line and
document (pure).

- :mod:`~rep_recheck.datasets`: the items of a dataset (JSON Lines, CSV, each compressed
  whole too, Parquet, an audit trail or its export), read streaming, and the dataset's
  own format written back for the items kept and those removed;
- :mod:`~rep_recheck.documents`: one origin's documents as known now (fetched, or
  captured in a WARC file: :mod:`~rep_recheck.warc`), with their evidence;
- :mod:`~rep_recheck.rechecker`: each item decided by the crawl's own decisions
  (:func:`rep_engine.verdict.decide.decide`, and :func:`rep_engine.verdict.page.decide_page` for
  a page fetched again);
- :mod:`~rep_recheck.outputs`: the line per item and its evidence, the counts and the
  summary;
  :mod:`~rep_recheck.trail`: the recheck's own audit trail;
- :mod:`~rep_recheck.command`: ``python -m scrapy_rep recheck`` (``python -m
  rep_recheck`` without Scrapy, documents from a WARC);
- :mod:`~rep_recheck.pipeline_step`: the datatrove step.

The documents fetched now come from a Scrapy crawl (:mod:`scrapy_rep.crawl.commands.recheck_crawl`),
handed in by the caller: nothing here imports Scrapy.
"""

__version__ = "0.1.0"
