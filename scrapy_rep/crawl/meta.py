"""The ``request.meta`` keys scrapy_rep reads and writes on a crawl's requests.

What goes in meta is small and plain (strings, tuples of strings): a request may be
serialised (``JOBDIR``, scrapy-redis) and copied (``request.replace``, redirects).
Never a parsed document or a cache entry.
"""

from __future__ import annotations

from typing import Final

#: The name of the document kind a request was handed back to be held for (SPEC §4):
#: set by ``process_request``, taken by ``request_scheduled`` (or, when it comes straight
#: back, by ``process_request`` again, which then waits).
HOLDING: Final = "_rep_holding"
#: ``((kind name, token), …)``: the entries that decide a request, kept by their
#: documents under these tokens (``OriginDocument.carry``). Set when a request is
#: released (or held for a later document), taken by ``process_request``. A token of
#: another run (a request read back from ``JOBDIR``) names nothing: decided afresh.
DECIDED: Final = "_rep_decided"
