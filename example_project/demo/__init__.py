"""The scrapy_rep example project: a demo crawl of an embedded local site."""
