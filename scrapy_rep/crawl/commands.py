"""The import path of the ``scrapy robots`` command that earlier installs' entry points
name (``scrapy_rep.crawl.commands:RobotsCommand``): the command lives in
:mod:`scrapy_rep.crawl.tools.robots_command`, which setup.cfg names now."""

from scrapy_rep.crawl.tools.robots_command import RobotsCommand as RobotsCommand
