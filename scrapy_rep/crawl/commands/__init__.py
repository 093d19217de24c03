"""The Scrapy side of the command-line tools: ``scrapy rep-robots`` (the checker's,
:mod:`~scrapy_rep.crawl.commands.robots_command`) and ``scrapy rep-audit`` (the audit-trail
tools', :mod:`~scrapy_rep.crawl.commands.audit_command`)."""
