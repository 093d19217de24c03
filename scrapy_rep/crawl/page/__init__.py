"""The page pass: the spider middleware and what it reads of each downloaded page
(X-Robots-Tag and robots meta, page-level usage signals and licenses) and the gates that
drop its items, links and image URLs. Builds on ``requests/`` and ``documents/``."""
