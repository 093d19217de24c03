"""``python -m scrapy_rep check …`` (:mod:`scrapy_rep.check`) and ``python -m scrapy_rep
audit …`` (:mod:`scrapy_rep.trailcli`)."""

import sys

if sys.argv[1:2] == ["audit"]:
    from scrapy_rep.trailcli import main as audit

    sys.exit(audit())
else:
    from scrapy_rep.check import main

    sys.exit(main())
