"""The request side: the downloader middleware and the gates it asks about each request
before download (robots.txt, AI-usage, the early refusal, the switches that turn obeying
off, the Scrapy middlewares it replaces). Builds on ``documents/``."""
