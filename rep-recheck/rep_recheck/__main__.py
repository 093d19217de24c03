"""``python -m rep_recheck DATASET --purpose P --documents WARC …``: the re-check without
Scrapy, its documents read from WARC files (:mod:`rep_recheck.command`; fetching them
needs the crawl of ``scrapy_rep``: ``python -m scrapy_rep recheck``)."""

from __future__ import annotations

import sys

from rep_engine.commandline import Door, run
from rep_recheck.options import TOOL

if __name__ == "__main__":
    sys.exit(run(TOOL, sys.argv[1:], None, Door("python -m rep_recheck")))
