"""The Scrapy side of the command-line tools: ``scrapy rep-robots`` (the checker's command,
:mod:`~scrapy_rep.crawl.commands.robots_command`, with the page fetch it reports on) and
``scrapy rep-audit`` (the audit-trail tools' command,
:mod:`~scrapy_rep.crawl.commands.audit_command`)."""
