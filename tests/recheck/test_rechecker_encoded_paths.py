"""The recheck's inline match of a path (``Rechecker.decide``, its fast path for a profile
that does not encode ``*`` and ``$``) decides as :meth:`RobotsTxt.code` does, over paths
written encoded (:func:`~rep_engine.urls.encoding.matched_as_given`, the one statement of
the test; the engine's own hot paths held to it: tests/robotstxt/test_robotstxt_many_names.py)."""

from __future__ import annotations

import time

import pytest

from rep_engine.fetch.cache import CacheEntry
from rep_engine.records import ItemStatus
from rep_engine.robotstxt import RobotsTxt, parse_robotstxt
from rep_engine.settings import RepConfig
from rep_engine.urls.encoding import ESCAPES_SPECIALS
from rep_engine.urls.origins import Origin, origin_of
from rep_engine.verdict.decide import ROBOTS, Refused
from rep_recheck.documents import OriginDocuments
from rep_recheck.rechecker import Identity, Rechecker
from tests.support.documents import ENCODED_PATHS, ENCODED_RULES


def _recheck_of(rules: RobotsTxt) -> Rechecker:
    """A recheck of one origin whose robots.txt is ``rules`` (its fast path: no trail)."""
    origin = origin_of("https://a.example/")
    assert origin is not None
    documents = OriginDocuments(origin, now=time.time())
    never = float("inf")
    documents.add(ROBOTS, origin, CacheEntry(rules, "200", 0.0, never, never))

    def known(found: Origin) -> OriginDocuments | None:
        return documents if found == origin else None

    config = RepConfig.from_settings({"REP_PURPOSE": "search"})
    return Rechecker(config, Identity("mybot"), known, explain=False)


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
@pytest.mark.parametrize("path", ENCODED_PATHS)
def test_the_rechecks_decide_normalises_as_code_does(profile: str, path: str) -> None:
    """The recheck's decide() (inline, for a profile that does not encode ``*`` and
    ``$``): the rule code() names decides, its outcome made, then remembered."""
    rules = parse_robotstxt(ENCODED_RULES, profile)
    url = "https://a.example" + path
    code = rules.code(url, "mybot")
    recheck = _recheck_of(rules)
    for _ in range(2):  # its outcome made, then remembered
        outcome = recheck.decide(url)
        assert outcome.status is (ItemStatus.KEPT if code >= 0 else ItemStatus.REFUSED)
        refusal = outcome.verdict
        assert (refusal.line if isinstance(refusal, Refused) else 0) == -min(code, 0)
    # the inline match is the one taken where the profile allows it
    inline = recheck._origins["https://a.example"].one
    assert (inline is not None) == (profile not in ESCAPES_SPECIALS)
