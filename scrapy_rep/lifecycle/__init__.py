"""An origin's robots.txt over time: every fetch decision of SPEC §4, as a state machine.

Pure and sans-I/O, in the shape of h11's ``_state.py``: events come in as frozen
objects (:class:`RequestSeen`, :class:`RecordLoaded`, :class:`LeaseAnswered`,
:class:`Downloaded`, :class:`TimerFired`), the clock is an argument, and
:meth:`Lifecycle.handle` answers with frozen actions (:class:`LoadRecord`,
:class:`StartDownload`, :class:`WakeAt`, :class:`Release`, :class:`SaveRecord`,
:class:`Stat`, :class:`Log`…) that the Scrapy adapter performs. No timer, download,
store or request lives here.

The phases of one origin (:meth:`Lifecycle.phase`):

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

from scrapy_rep.lifecycle.machine import Lifecycle
from scrapy_rep.lifecycle.shared import LEASE_POLL
from scrapy_rep.lifecycle.state import Phase

__all__ = ["LEASE_POLL", "Lifecycle", "Phase"]
