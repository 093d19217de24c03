"""Request states as a paused crawl of an earlier version pickled them: the tuple had
``scheduled`` (never set), its eighth value (scrapy_rep/crawl/requeststate.py)."""

from __future__ import annotations

import copyreg
import io
import pickle
from typing import Any

from scrapy_rep.crawl.requeststate import RequestState


class _WithScheduled(pickle.Pickler):
    """Pickles a :class:`RequestState` as the class with ``scheduled`` did: its values in
    order, ``scheduled`` (``False``) the eighth, given to the class on loading (the very
    bytes that class wrote: a namedtuple pickles as ``copyreg.__newobj__`` of its class
    and values)."""

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is not RequestState:
            return NotImplemented
        values = tuple(obj)
        return copyreg.__newobj__, (RequestState, *values[:7], False, *values[7:])


def dumps_with_scheduled(obj: Any, protocol: int | None = None) -> bytes:
    """``pickle.dumps(obj, protocol)``, each request state in ``obj`` pickled with
    ``scheduled``."""
    buffer = io.BytesIO()
    _WithScheduled(buffer, protocol).dump(obj)
    return buffer.getvalue()
