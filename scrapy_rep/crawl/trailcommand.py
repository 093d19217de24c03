"""The import path of the ``scrapy audit`` command that earlier installs' entry points
name (``scrapy_rep.crawl.trailcommand:AuditCommand``): the command lives in
:mod:`scrapy_rep.crawl.tools.audit_command`, which setup.cfg names now."""

from scrapy_rep.crawl.tools.audit_command import AuditCommand as AuditCommand
