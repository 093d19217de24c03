"""A document over time, per key: every fetch decision of SPEC §4, as a state machine.

Pure and sans-I/O, in the shape of h11's ``_state.py``: events come in as frozen objects,
the clock is an argument, and :meth:`Lifecycle.handle` answers with frozen actions that
the Scrapy adapter performs (``events.py``). No timer, download, store or request lives
here. ``Lifecycle(policy, kind, cache)``: one per
:class:`~rep_engine.fetch.kinds.DocumentKind` (robots.txt, tdmrep.json…), which says how
to parse, stand in for, store and count the document; a key is any hashable value (an
origin, or the URL of a document found by its URL). The transitions are in
``machine.py``, those of the fetching phase too; what is known per key in ``state.py``;
the entries a download or a give-up comes to in ``shared.py``.

The phases of one key (:meth:`Lifecycle.phase`):

| phase | what is known | what is under way |
|---|---|---|
| unknown | nothing | nothing: the next request starts a fetch |
| fetching | nothing usable | a store lookup, a lease wait, a download slot or the download |
| fresh | a copy within its lifetime | nothing |
| stale | a copy past its lifetime, within the stale limit | nothing: next request refreshes |
| stale-refreshing | a stale copy, still used | a refresh, or the wait to retry one |
| failing | nothing usable; the download failed | the wait to retry; requests held |
| gave-up | the give-up verdict (drop or allow) | nothing until it expires |

One download slot is taken per download, at most ``concurrency`` at once (robots.txt
files that hang cannot take the whole crawl); the time an origin waits for a slot while
failing does not count against ``max_wait``, since the site was not asked meanwhile.
"""
