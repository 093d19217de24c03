"""May this request go? The one decision, on the facts of the request as it is sent (pure).

:func:`decide` takes the facts of one request, the settings that decide and the document
versions known, and answers one value (:mod:`rep_engine.verdict.values`).

The crawl's downloader middleware (and its early pass before the scheduler), both
command-line tools, ``audit verify``'s re-derivation and the media gate ask this
function, so a request reads the same everywhere (docs/decisions.md, 'One request, one
verdict'). A new opt-out rule is one branch here.

The order (each step only for a request the previous ones allow):

1. no origin (``data:``, ``file:``, ``about:``; SPEC §3) or nothing obeyed
   (``ROBOTSTXT_OBEY = False`` without a purpose, Scrapy's ``dont_obey_robotstxt``):
   allowed, nothing checked;
2. robots.txt (SPEC §1, §5): its Allow/Disallow for every name the request is held to
   (the crawler's declared name, then the name it is sent as: docs/decisions.md, 'Every
   name a request can be held to'; the stricter answer wins), unless
   Allow/Disallow are not obeyed (then only a robots.txt given up on as unreachable
   refuses: its opt-outs are not known, docs/decisions.md 'Not obeying robots.txt keeps the
   purpose's opt-outs'), or the origin's host has an authorized override
   (``REP_OVERRIDES``: recorded as overridden) that has not expired when the request is
   sent (``now``, a number passed in: this module never reads the clock);
3. the groups of ``REP_PURPOSE_AGENTS`` (obeyed as the crawler's own; never overridden);
4. the further documents the purposes need: the origin's tdmrep.json for AI purposes,
   the RSL licenses of robots.txt's ``License:`` lines for a crawl with ``REP_PURPOSE``
   set (purpose-notes §9; RSL 1.0 §4.4): every one is asked for at once (so their
   fetches run together), and those known already may refuse before the others come;
   more than ``REP_RSL_MAX_LICENSES`` of them are none read and refuse every purpose
   (docs/decisions.md, 'At most REP_RSL_MAX_LICENSES licenses are read per robots.txt');
5. a tdmrep.json given up on as unreachable (``REP_UNREACHABLE_ACTION = "drop"``);
6. an explicit "no" for a purpose of the crawl in robots.txt (``Content-Usage``,
   ``Content-Signal``), tdmrep.json or those licenses (unknown never refuses before the
   fetch: the page may still say yes).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from rep_engine.fetch.rsl_kind import licenses_not_read, licenses_to_wait_for
from rep_engine.records import Reason
from rep_engine.usage.rsl.terms import licenses_signals
from rep_engine.verdict.policy import NOTHING_BEFORE, RESERVED_ALL
from rep_engine.verdict.values import (
    LICENSE,
    ROBOTS,
    TDM,
    UNCHECKED,
    Allowed,
    Known,
    Obey,
    Override,
    Refused,
    RequestFacts,
    RequestRules,
    Used,
    Verdict,
    Wait,
    expiry_words,
)

if TYPE_CHECKING:
    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.robotstxt import Decision, RobotsTxt
    from rep_engine.urls.origins import Origin


#: The document a refusing signal before the fetch comes from, by its vocabulary: robots.txt's
#: ``Content-Usage`` and ``Content-Signal`` lines, tdmrep.json or an RSL license.
_DOCUMENT_OF: Final = {"tdmrep": TDM, "rsl": LICENSE}


def decide(
    facts: RequestFacts, rules: RequestRules, known: Known, now: float | None = None
) -> Verdict:
    """The verdict on one request (the order: the module's). ``now``: when it is sent (POSIX
    seconds), against which an override's expiry is held; ``None``: no override applies."""
    origin = facts.origin
    if origin is None or facts.obey is Obey.NOTHING:
        return UNCHECKED
    if facts.served_by is not None:
        return _decide_both(facts, rules, known, now)
    robots = known(ROBOTS, origin)
    if robots is None:
        return Wait(ROBOTS, origin)
    url, agent, names = facts.url, facts.agent, facts.names
    others = names[1:]  # the name it is sent as, when another (no call: the hot path)
    txt = robots.rules
    used: Used = ((ROBOTS, origin, robots),)
    decision: Decision | None = None
    overridden = None
    obeyed = facts.obey is Obey.ALL
    refusing = None  # the name it is sent as, when that one refuses it
    if obeyed:
        if rules.explain:
            decision = txt.decide(url, agent)
            allowed = decision.allowed
        else:
            allowed = txt.allowed(url, agent)
        if allowed and others:  # stricter wins: any name's "no" refuses
            for other in others:
                if not txt.allowed(url, other):
                    allowed, refusing = False, other
                    break
        if not allowed:
            found = _disallowed(facts, rules, robots, used, decision, refusing, now)
            if isinstance(found, Refused):
                return found
            overridden = found
    elif robots.unreachable and txt.verdict is False:
        return _robots_refusal(origin, robots, url, agent, used, None)
    past = None
    if overridden is not None:  # let through by an override
        decision, past = _gone_past(txt, url, agent, refusing, decision)
    for token in rules.agents:
        if not txt.allowed(url, token):
            return _robots_refusal(origin, robots, url, token, used, None, named=True)
    if rules.needs_tdmrep or (rules.purpose_set and txt.licenses) or not txt.states_no_usage:
        return _after_robots(facts, rules, known, txt, used, decision, obeyed, overridden, past)
    return Allowed(used, decision, NOTHING_BEFORE, obeyed, overridden, past)  # nothing more


def _disallowed(
    facts: RequestFacts,
    rules: RequestRules,
    robots: CacheEntry[RobotsTxt],
    used: Used,
    decision: Decision | None,
    refusing: str | None,
    now: float | None,
) -> Refused | Override:
    """robots.txt disallows the request (for the name ``refusing`` alone, when it is
    not ``None``): refused, unless an override of its origin's host still applies at
    ``now`` to a robots.txt not given up on (the override returned, which lets it past).
    An override that has expired is named in the refusal."""
    origin = facts.origin
    assert origin is not None
    overridden = rules.overrides.get(origin.host) if rules.overrides else None
    expired = None
    if overridden is not None and (now is None or now >= overridden.ends):
        # no longer applies (None: no time known, so no override applies)
        expired, overridden = (overridden if now is not None else None), None
    if overridden is not None and not robots.unreachable:
        return overridden
    if refusing is not None:  # the refusing name's own line decides
        return _robots_refusal(origin, robots, facts.url, refusing, used, None, expired, named=True)
    return _robots_refusal(origin, robots, facts.url, facts.agent, used, decision, expired)


def _gone_past(
    txt: RobotsTxt, url: str, agent: str, refusing: str | None, decision: Decision | None
) -> tuple[Decision, str | None]:
    """The line an override lets a request go past, which the record names: that of the
    name whose group disallows it (``refusing``: the name it is sent as, when only that
    one does, also returned), else the declared name's (``decision``, if decided)."""
    if refusing is not None:
        return txt.decide(url, refusing), refusing
    return (decision if decision is not None else txt.decide(url, agent)), None


def _after_robots(
    facts: RequestFacts, rules: RequestRules, known: Known, txt: RobotsTxt, used: Used,
    decision: Decision | None, obeyed: bool, overridden: Override | None, past: str | None,
) -> Verdict:  # fmt: skip
    """The verdict on a request robots.txt lets through, when more is read (steps 4 to 6
    of the module docstring; tdmrep.json's Wait first, a license's after any refusal)."""
    origin = facts.origin
    assert origin is not None
    tdm = None
    if rules.needs_tdmrep:
        tdm = known(TDM, origin)
        if tdm is None:
            return Wait(TDM, origin, used)
        used += ((TDM, origin, tdm),)
    licenses: list[tuple[str, Any]] = []
    pending: list[Hashable] = []
    if rules.purpose_set and txt.licenses:
        used = _licenses(txt, rules, known, used, licenses, pending)
    if tdm is not None and tdm.unreachable and tdm.rules is RESERVED_ALL:
        message = f"Dropped: tdmrep.json of {origin} {tdm.outcome}"
        return Refused(
            Reason.TDMREP_UNREACHABLE, message, TDM, facts.agent, used, decision,
            overridden=overridden, robots_agent=past,
        )  # fmt: skip
    before = NOTHING_BEFORE
    if tdm is not None or licenses or not txt.states_no_usage:
        rsl = licenses_signals(licenses, facts.url, rules.rsl_owned) if licenses else ()
        # for its crawler names, the name it is sent as and REP_PURPOSE_AGENTS' tokens
        others = facts.names[1:]
        further = (*others, *rules.agents) if others else rules.agents
        tdm_file = None if tdm is None else tdm.rules
        before = rules.policy.before_fetch(txt, facts.url, facts.agent, tdm_file, further, rsl)
        refusal = rules.policy.refuse_before(before) if before is not NOTHING_BEFORE else None
        if refusal is not None:
            signal = refusal.signal
            said = ROBOTS if signal is None else _DOCUMENT_OF.get(signal.vocabulary, ROBOTS)
            return Refused(
                Reason.PURPOSE, f"Not fetched: {refusal.message}", said,
                facts.agent, used, decision, purpose=refusal.purpose, signal=signal,
                before=before, overridden=overridden, robots_agent=past,
            )  # fmt: skip
    if pending:  # no license known so far refuses it: it waits for the others
        return Wait(LICENSE, pending[0], used, tuple(pending[1:]))
    return Allowed(used, decision, before, obeyed, overridden, past)


def _licenses(
    txt: RobotsTxt,
    rules: RequestRules,
    known: Known,
    used: Used,
    licenses: list[tuple[str, Any]],
    pending: list[Hashable],
) -> Used:
    """The RSL licenses robots.txt names (every crawler's: RSL's guide), each known one
    added to ``licenses`` (its rules) and to the versions ``used`` (returned), each not
    known yet to ``pending`` (:func:`~rep_engine.fetch.rsl_kind.licenses_not_read` past
    the bound)."""
    keys = licenses_to_wait_for(txt.licenses)
    beyond = licenses_not_read(keys, rules.max_licenses)
    if beyond is not None:
        licenses.append(beyond)
        keys = ()
    for key in keys:
        found = known(LICENSE, key)
        if found is None:
            pending.append(key)
            continue
        used += ((LICENSE, key, found),)
        licenses.append((key, found.rules))
    return used


def _decide_both(
    facts: RequestFacts, rules: RequestRules, known: Known, now: float | None
) -> Verdict:
    """The verdict on a request whose ``Host`` header addresses another site than its URL
    (:attr:`RequestFacts.served_by`): decided for the site addressed, then for the
    URL's own origin, whose server it reaches (SPEC §3: one robots.txt per origin; which
    one the site's owner meant is unclear, so the reading that refuses: docs/decisions.md,
    'A request sent with another Host is decided by both sites'). Either one's refusal
    refuses it (the refusal names that origin's document, its versions first); either
    one's document not known yet, it waits (carrying those read so far). Allowed by both:
    the addressed site's verdict (its robots.txt first, its ``Crawl-delay``, what its
    documents said for the page's check), with the versions of both (its verdict holds
    while both are fresh)."""
    addressed = decide(facts._replace(served_by=None), rules, known, now)
    if not isinstance(addressed, Allowed):
        return addressed
    served_by = facts.served_by
    assert served_by is not None
    own = decide(facts._replace(origin=served_by, served_by=None), rules, known, now)
    if isinstance(own, Wait):
        return Wait(own.document, own.key, addressed.used + own.used, own.also)
    if isinstance(own, Refused):
        return own
    before = addressed.before if addressed.before is not NOTHING_BEFORE else own.before
    overridden = addressed.overridden or own.overridden
    return replace(addressed, used=addressed.used + own.used, before=before, overridden=overridden)


def _robots_refusal(
    origin: Origin,
    robots: CacheEntry[RobotsTxt],
    url: str,
    agent: str,
    used: Used,
    decision: Decision | None,
    expired: Override | None = None,
    named: bool = False,
) -> Refused:
    """robots.txt refuses ``url`` for ``agent``: forbidden, or dropped as unreachable (a
    robots.txt given up on: its opt-outs are not known; SPEC §4). ``expired``: the
    override of its host that no longer applies, which the sentence names. ``named``:
    ``agent`` is not the crawler's declared name (a ``REP_PURPOSE_AGENTS`` token, or the
    name the request is sent as), which the sentence names."""
    if decision is None:
        decision = robots.rules.decide(url, agent)
    if robots.unreachable:
        message = f"Dropped: robots.txt of {origin} {robots.outcome}"
        return Refused(Reason.ROBOTSTXT_UNREACHABLE, message, ROBOTS, agent, used, decision)
    token = f" for {agent}" if named else ""
    message = f"Forbidden by {origin.robots_url}{token} ({decision.explanation})"
    if expired is not None:
        authorized = expiry_words(expired.expires)
        message += f"; its override in REP_OVERRIDES has expired (authorized {authorized})"
    return Refused(Reason.FORBIDDEN, message, ROBOTS, agent, used, decision, expired=expired)
