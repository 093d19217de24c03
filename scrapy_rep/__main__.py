"""``python -m scrapy_rep check …``: see :mod:`scrapy_rep.check`."""

import sys

from scrapy_rep.check import main

sys.exit(main())
