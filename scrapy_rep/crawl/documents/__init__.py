"""The per-origin documents a crawl keeps (robots.txt always; tdmrep.json and RSL for AI
purposes): their kinds, fetched through the engine, held requests while one is on its way,
the stores that share them across processes, and the download slots their Crawl-delay
sets. Imports nothing of the other subpackages of ``crawl/``."""
