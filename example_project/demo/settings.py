"""Settings of the scrapy_rep example project.

One line enables the whole suite (robots.txt enforcement and page-level directives):
``ADDONS = {"scrapy_rep.Addon": 0}``. The ``REP_*`` settings below are the interesting
ones, each documented in docs/settings.md.

Run it from this directory: ``scrapy crawl demo`` (the embedded demo site), or
``scrapy crawl demo -a start_url=https://example.com/`` for a real site (that site only,
links at most 2 deep, at most 50 responses: see the spider); add ``-O items.jsonl``
for the items.
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
# Crawl-delay is obeyed by default (Google does not; Bing, Yandex, Nutch do), at most 10 s
# per origin; REP_OBEY_CRAWL_DELAY = False would ignore it.
REP_CRAWL_DELAY_MAX = 10
# An unreachable robots.txt (5xx, 429, network error): retry after 1 s, give up after 30 s.
REP_UNREACHABLE_RETRY_DELAY = 1
REP_UNREACHABLE_MAX_WAIT = 30

# Cache robots.txt for a day (Cache-Control may shorten or lengthen that within bounds).
REP_CACHE_TTL = 24 * 3600

# Page-level directives: drop items of noindex pages, do not follow nofollow pages' links.
REP_NOINDEX_ACTION = "drop"
REP_NOFOLLOW_ACTION = "drop"
REP_REL_NOFOLLOW = True

# Print what the REP did, per origin and per URL, when the crawl ends.
REP_REPORT = True

# A small, fast, local demo.
CONCURRENT_REQUESTS = 8
DOWNLOAD_TIMEOUT = 10
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"
