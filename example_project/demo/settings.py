"""Settings of the scrapy_rep example project.

One line enables the whole suite (robots.txt enforcement and page-level directives):
``ADDONS = {"scrapy_rep.Addon": 0}``. The ``REP_*`` settings below are the interesting
ones, each documented in the README.

Status: the add-on ``scrapy_rep.Addon`` is not written yet (issue 4), so this project does
not run yet; its demo site (``demo/site.py``) and spider are ready for it.
"""

BOT_NAME = "demo"
SPIDER_MODULES = ["demo.spiders"]
NEWSPIDER_MODULE = "demo.spiders"

# The crawler's identity: robots.txt groups and robots meta tags are matched against the
# product token "repdemo" (the leading letters of the User-Agent).
USER_AGENT = "repdemo/1.0 (+https://github.com/scrapy_rep example)"

# The whole suite in one line.
ADDONS = {"scrapy_rep.Addon": 0}
ROBOTSTXT_OBEY = True

# robots.txt: the profile ("google", "rfc9309" or "legacy").
REP_PROFILE = "google"
# Honour Crawl-delay (Google does not; polite crawlers often do), at most 10 s per origin.
REP_OBEY_CRAWL_DELAY = True
REP_CRAWL_DELAY_MAX = 10
# An unreachable robots.txt (5xx, 429, network error): retry after 1 s, give up after 30 s.
REP_UNREACHABLE_RETRY_DELAY = 1
REP_UNREACHABLE_MAX_WAIT = 30

# Page-level directives: drop items of noindex pages, do not follow nofollow pages' links.
REP_NOINDEX_ACTION = "drop"
REP_NOFOLLOW_ACTION = "drop"
REP_REL_NOFOLLOW = True

# A small, fast, local demo.
CONCURRENT_REQUESTS = 8
DOWNLOAD_TIMEOUT = 10
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"
