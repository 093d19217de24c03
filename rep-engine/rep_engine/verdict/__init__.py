"""May this request go, and what may be done with what came back? The one decision on a
request, which the crawl, its early pass, both tools, the trail's re-derivation and the
media gate ask, with the values it takes and answers (:mod:`rep_engine.verdict.decide`),
and the one decision on a fetched page (:mod:`rep_engine.verdict.page`). Nothing is
re-exported here: each name is imported from the module that defines it
(``rep_engine.__all__`` holds the verdicts a project sees)."""
