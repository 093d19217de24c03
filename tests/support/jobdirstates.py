"""The ``JOBDIR`` states a real paused crawl of 237886c2 kept, as they were written: its
URL ledger's (``scrapy_rep.audit.json``, state version 5, open entries by field name) and
its held requests' (``scrapy_rep.state``, version 4, each request pickled on its own, with
its ``RequestState`` in its meta). 27291d8 writes the same versions, with the same fields.

Recorded from a crawl of two origins (``127.0.0.1`` ports 39019 and 45699): the first's
robots.txt answered 503 (its two requests held, one with ``dont_filter``), the second's
allowed its pages under a tdmrep.json (``REP_PURPOSE = ["ai-train"]``); paused
(``stop``, as SIGINT does) while a page answered 503 waited in the queue for its retry (an
open entry decided, sent once, with its ``robots`` part, tdmrep.json and times) and two
pages waited behind it. A resume of a later version reads both (the resume tests).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, Final

#: The URL ledger's state, as ``scrapy_rep.audit.json`` held it (its trail's path made
#: another's: the crawl ran in a temporary folder).
AUDIT_STATE: Final = """\
{
 "run": "59bccee2c9a4447a931b9387a07a675d",
 "version": 5,
 "open": {
  "bda3399dd1f190c7480878cf612fc4715c3bcbc1-1": {
   "url": "http://127.0.0.1:39019/1",
   "attempts": 0,
   "status": null,
   "held": 1,
   "robots": null,
   "tdm": null,
   "fetched": false,
   "licenses": null,
   "earlier": "",
   "sent": null,
   "sent_at": null,
   "expires": null,
   "unscheduled": false
  },
  "1e14d89bf4addb4c8be7bfc679b2d2bd2f1cc030-2": {
   "url": "http://127.0.0.1:39019/2",
   "attempts": 0,
   "status": null,
   "held": 1,
   "robots": null,
   "tdm": null,
   "fetched": false,
   "licenses": null,
   "earlier": "",
   "sent": null,
   "sent_at": null,
   "expires": null,
   "unscheduled": false
  },
  "21c5278894ac8968e30c8d9b392abf32261d36f2-3": {
   "url": "http://127.0.0.1:45699/3",
   "attempts": 1,
   "status": null,
   "held": 1,
   "robots": [
    "12ac685152c019807b53ec43dbe9029c19bbbc40454943b87c1b30aa85b56d89",
    "testbot",
    3,
    "Allow: /",
    "",
    true,
    "",
    "",
    [],
    null,
    "",
    null
   ],
   "tdm": "8f3ac600d9d7498296711d1e96db1ca3b0619d4bd773e55e1bbc06a382d78438",
   "fetched": false,
   "licenses": null,
   "earlier": "",
   "sent": null,
   "sent_at": 1795920765.9086885,
   "expires": 1796007163.8773818,
   "unscheduled": false
  },
  "7c1be11bfeb90a205a2ecdaede7e423e61dfbdde-5": {
   "url": "http://127.0.0.1:45699/1",
   "attempts": 0,
   "status": null,
   "held": 1,
   "robots": null,
   "tdm": null,
   "fetched": false,
   "licenses": null,
   "earlier": "",
   "sent": null,
   "sent_at": null,
   "expires": null,
   "unscheduled": false
  }
 },
 "unfiltered": {
  "bda3399dd1f190c7480878cf612fc4715c3bcbc1": "bda3399dd1f190c7480878cf612fc4715c3bcbc1-1"
 },
 "left_in_queue": [],
 "sequence": 7,
 "trail": "/tmp/paused/trail.jsonl",
 "head": "8373c95156f68582079325ee58955b7728d40f3412015e39e5d47dbdf645e284"
}
"""
#: The held requests' state, as ``scrapy_rep.state`` held it (a pickle), in base64.
HELD_STATE: Final = (
    "gAWVRAMAAAAAAAB9lCiMB3ZlcnNpb26USwSMBGhlbGSUXZQoQogBAACABZV9AQAAAAAAAH2UKIwDdXJslIwY"
    "aHR0cDovLzEyNy4wLjAuMTozOTAxOS8xlIwIY2FsbGJhY2uUjAVwYXJzZZSMB2VycmJhY2uUjAZmYWlsZWSU"
    "jAdoZWFkZXJzlH2UjARib2R5lEMAlIwHY29va2llc5R9lIwEbWV0YZR9lCiMEGlzX3N0YXJ0X3JlcXVlc3SU"
    "iIwEX3JlcJSMHXNjcmFweV9yZXAuY3Jhd2wucmVxdWVzdHN0YXRllIwMUmVxdWVzdFN0YXRllJOUKIwYaHR0"
    "cDovLzEyNy4wLjAuMTozOTAxOS8xlIwqYmRhMzM5OWRkMWYxOTBjNzQ4MDg3OGNmNjEyZmM0NzE1YzNiY2Jj"
    "MS0xlE4pSwBOKYlHAAAAAAAAAABoCksAiXSUgZR1jAhlbmNvZGluZ5SMBXV0Zi04lIwFZmxhZ3OUXZSMCWNi"
    "X2t3YXJnc5R9lIwLZG9udF9maWx0ZXKUiIwGbWV0aG9klIwDR0VUlIwIcHJpb3JpdHmUSwB1LpRCiAEAAIAF"
    "lX0BAAAAAAAAfZQojAN1cmyUjBhodHRwOi8vMTI3LjAuMC4xOjM5MDE5LzKUjAhjYWxsYmFja5SMBXBhcnNl"
    "lIwHZXJyYmFja5SMBmZhaWxlZJSMB2hlYWRlcnOUfZSMBGJvZHmUQwCUjAdjb29raWVzlH2UjARtZXRhlH2U"
    "KIwQaXNfc3RhcnRfcmVxdWVzdJSIjARfcmVwlIwdc2NyYXB5X3JlcC5jcmF3bC5yZXF1ZXN0c3RhdGWUjAxS"
    "ZXF1ZXN0U3RhdGWUk5QojBhodHRwOi8vMTI3LjAuMC4xOjM5MDE5LzKUjCoxZTE0ZDg5YmY0YWRkYjRjOGJl"
    "N2JmYzY3OWIyZDJiZDJmMWNjMDMwLTKUTilLAE4piUcAAAAAAAAAAGgKSwCJdJSBlHWMCGVuY29kaW5nlIwF"
    "dXRmLTiUjAVmbGFnc5RdlIwJY2Jfa3dhcmdzlH2UjAtkb250X2ZpbHRlcpSJjAZtZXRob2SUjANHRVSUjAhw"
    "cmlvcml0eZRLAHUulGWMB3NwaWxsZWSUXZR1Lg=="
)


def audit_state() -> dict[str, Any]:
    """The URL ledger's state, read."""
    return json.loads(AUDIT_STATE)  # type: ignore[no-any-return]


def write_states(jobdir: Path) -> None:
    """Both states written in ``jobdir``, as the paused crawl left them."""
    jobdir.mkdir(parents=True, exist_ok=True)
    (jobdir / "scrapy_rep.audit.json").write_text(AUDIT_STATE, encoding="utf-8")
    (jobdir / "scrapy_rep.state").write_bytes(base64.b64decode(HELD_STATE))
