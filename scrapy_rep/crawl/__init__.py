"""The Scrapy side of scrapy_rep: downloads over the engine, held requests, download
slots, stores and response reading, used by the middlewares. Everything here may import
Scrapy and Twisted; nothing in the pure modules imports anything from here."""
