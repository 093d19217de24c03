"""The waits of the requests held for their origins' documents (``request_held``,
``request_released``), per origin and per URL, as the URL ledger keeps them for the
end-of-crawl report. A request held before it was decided has no entry yet (a media
pipeline's file): its waits are counted all the same."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

if TYPE_CHECKING:
    from scrapy import Request


@dataclass
class OriginWaits:
    """The requests that waited for one origin's documents (or a document keyed by its
    URL: an RSL license)."""

    #: The requests that waited for it, and their waits (a request may wait more than
    #: once: for robots.txt, then for its refresh as it is sent).
    waited: int = 0
    waits: int = 0
    #: The requests released (or dropped) after robots.txt downloads that failed.
    held_unreachable: int = 0


class Waits:
    """The crawl's waits, by origin and, for those held through failures, by URL."""

    def __init__(self) -> None:
        self.origins: dict[str, OriginWaits] = {}
        #: URL -> the most failed robots.txt downloads a request of it was held through.
        self.failures: dict[str, int] = {}
        #: The requests held so far that are still alive, and what they waited for: a
        #: request held again for the same origin's documents is one more wait, not one
        #: more request (weak: a request gone is never held again; one that waited on
        #: disk, ``rep/requests/spilled``, comes back as another object).
        self._held_for: WeakKeyDictionary[Request, set[str]] = WeakKeyDictionary()

    def held(self, request: Request, origin: str) -> None:
        """``request`` waits for ``origin``'s documents (``request_held``)."""
        waits = self.origins.setdefault(origin, OriginWaits())
        waits.waits += 1
        held_for = self._held_for.setdefault(request, set())
        if origin not in held_for:
            held_for.add(origin)
            waits.waited += 1

    def released(self, request: Request, origin: str, failures: int, **_: Any) -> None:
        """``request`` goes on after ``failures`` robots.txt downloads failed meanwhile
        (``request_released``)."""
        if failures:
            self.origins.setdefault(origin, OriginWaits()).held_unreachable += 1
            url = request.url
            self.failures[url] = max(self.failures.get(url, 0), failures)
