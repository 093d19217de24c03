"""One requested URL's entry, from its decision to its fate, and its ``url`` line both ways
(docs/audit-trail.md, "url records"). Pure: values only.

:class:`UrlEntry` is what the crawl knows of one request until its fate is final;
:meth:`UrlEntry.line` writes its ``url`` record and :meth:`UrlEntry.from_line` reads one
back, so that the crawl that writes a record and every reader of it hold the same fields.
A paused crawl keeps its open entries in ``JOBDIR`` (:meth:`UrlEntry.state`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from rep_engine.trail.lines import iso_time, robots_part
from rep_engine.trail.read import items, mapping, text, whole

if TYPE_CHECKING:
    from rep_engine.verdict import Allowed, Refused, RequestFacts

#: A ``url`` record's keys the entry holds, in the order a record is written; any other
#: key of a record (``why``, ``usage``, ``page``, items and links...) is what its fate
#: added (:meth:`UrlEntry.from_line`'s ``added``).
_HEAD: Final = ("type", "run", "time", "id", "url", "fate", "attempts", "status")
_TAIL: Final = (
    "unscheduled",
    "again",
    "held",
    "robots",
    "tdmrep",
    "rsl",
    "sent",
    "sent_at",
    "expires",
)
#: Keys that are not what a fate added: the entry's, and the chain's (``prev``, which the
#: trail's file writes).
_ENTRY_KEYS: Final = frozenset((*_HEAD, *_TAIL, "prev"))
#: The version of :meth:`UrlEntry.state` (an entry as a dict by field name); before it, a
#: state was a list read by position (:meth:`UrlEntry.from_state`).
STATE_VERSION: Final = 5


class RobotsPart(NamedTuple):
    """What robots.txt said of a request: the arguments of :func:`robots_part`, which
    writes them as the record's ``robots`` part (its docstring says each)."""

    sha256: str
    agent: str
    line: int | None
    rule: str | None
    why: str
    obeyed: bool = True
    overridden: str = ""
    override_expired: str = ""
    agents: tuple[str, ...] = ()
    override_ends: float | None = None
    addressed: str = ""
    also: str | None = None

    def part(self) -> dict[str, Any]:
        return robots_part(*self)

    @classmethod
    def of(cls, saved: Sequence[Any]) -> RobotsPart:
        """A part kept in ``JOBDIR`` (a list: an earlier version's may be shorter)."""
        values = list(saved)
        if len(values) > 8:
            values[8] = tuple(values[8] or ())
        return cls(*values)

    @classmethod
    def from_part(cls, part: Mapping[str, Any]) -> RobotsPart:
        """The values a record's ``robots`` part was written from (``why`` is written only
        when no line decided: ``""`` otherwise), each not of its type as a missing one."""
        line = whole(part.get("line"))
        ends = part.get("override_ends")
        return cls(
            text(part.get("snapshot")),
            text(part.get("agent")),
            line,
            text(part.get("rule")) if line is not None else None,
            text(part.get("why")),
            part.get("obeyed", True) is not False,
            text(part.get("overridden")),
            text(part.get("override_expired")),
            tuple(agent for agent in items(part.get("agents")) if isinstance(agent, str)),
            _seconds(ends) if isinstance(ends, str) else None,
            text(part.get("addressed")),
            also if isinstance(also := part.get("also"), str) else None,
        )


@dataclass(slots=True)
class UrlEntry:
    """One request, from the moment it is scheduled (or decided, unscheduled) to its fate."""

    #: The URL requested (the URL it was sent as, when a component changed it after its
    #: decision and it was decided again: ``sent``).
    url: str
    #: Downloads tried (a try held or refused as it was to be sent is taken back).
    attempts: int = 0
    #: The status of the latest response (``None``: none, or a redirect's reason unknown).
    status: int | None = None
    #: How many times it waited for its origin's documents.
    held: int = 0
    #: What robots.txt said (``None``: no robots.txt decided it).
    robots: RobotsPart | None = None
    #: The tdmrep.json snapshot it was decided with (``None``: none checked; ``""``:
    #: given up on as unreachable).
    tdm: str | None = None
    #: Its response came: the fate waits for its page's output.
    fetched: bool = False
    #: RSL license URL -> the snapshot it was decided with (``None``: none checked).
    licenses: dict[str, str] | None = None
    #: The id of the earlier record of the same URL in this crawl (``again``).
    earlier: str = ""
    #: How the request as sent differs from the one decided (``None``: it does not).
    sent: str | None = None
    #: When it last left for the network (POSIX seconds; ``None``: never), and until when
    #: the verdict it was sent under held then (``None``: no end).
    sent_at: float | None = None
    expires: float | None = None
    #: Downloaded without the scheduler (a media pipeline's file, a callback's own fetch).
    unscheduled: bool = False
    #: The verdict it was last decided with and the facts it was decided on (``None``: not
    #: decided), for the ledger's readers (the command-line tools print them): never
    #: written, neither in its line nor in its state.
    decision: tuple[Allowed | Refused, RequestFacts] | None = field(
        default=None, compare=False, repr=False
    )

    def line(
        self, run: str, key: str, fate: str, added: Mapping[str, Any], now: str = ""
    ) -> dict[str, Any]:
        """The ``url`` record of this entry, whose fate is ``fate`` (``added``: what the fate
        adds, in its order: ``why``, ``refused_by``, ``usage``, ``page``...), written at
        ``now`` (ISO 8601; ``""``: the clock's)."""
        record: dict[str, Any] = {
            "type": "url", "run": run, "time": now or iso_time(), "id": key, "url": self.url,
            "fate": fate, "attempts": self.attempts, "status": self.status,
        }  # fmt: skip
        record.update(added)
        if self.unscheduled:  # downloaded without the scheduler: no dupefilter let it through
            record["unscheduled"] = True
        if self.earlier:
            record["again"] = self.earlier
        if self.held:
            record["held"] = self.held
        if self.robots is not None:
            record["robots"] = self.robots.part()
        if self.tdm is not None:
            record["tdmrep"] = self.tdm
        if self.licenses:
            record["rsl"] = self.licenses
        if self.sent:
            record["sent"] = self.sent
        if self.sent_at is not None:
            record["sent_at"] = iso_time(self.sent_at)
            if self.expires is not None:
                record["expires"] = iso_time(self.expires)
        return record

    @classmethod
    def from_line(cls, record: Mapping[str, Any]) -> tuple[UrlEntry, dict[str, Any]]:
        """The entry a ``url`` (or ``file``) record was written from, and what its fate
        added (every key but the entry's and the chain's ``prev``, in the record's order):
        ``entry.line(the record's run, id, fate, added, time)`` is the record again,
        without ``prev``. A value not of its type is read as a missing one: never raises."""
        robots = record.get("robots")
        sent_at = record.get("sent_at")
        expires = record.get("expires")
        entry = cls(
            text(record.get("url")),
            whole(record.get("attempts")) or 0,
            whole(record.get("status")),
            whole(record.get("held")) or 0,
            RobotsPart.from_part(robots) if isinstance(robots, Mapping) else None,
            tdm if isinstance(tdm := record.get("tdmrep"), str) else None,
            record.get("fate") == "fetched",
            {text(k): text(v) for k, v in mapping(record.get("rsl")).items()} or None,
            text(record.get("again")),
            text(record.get("sent")) or None,
            _seconds(sent_at) if isinstance(sent_at, str) else None,
            _seconds(expires) if isinstance(expires, str) and sent_at else None,
            record.get("unscheduled") is True,
        )
        added = {key: value for key, value in record.items() if key not in _ENTRY_KEYS}
        return entry, added

    def state(self) -> dict[str, Any]:
        """The entry as ``JOBDIR`` keeps it for a resumed run (JSON; by field name)."""
        return {name: getattr(self, name) for name in _STATE_FIELDS}

    @classmethod
    def from_state(cls, saved: Mapping[str, Any] | Sequence[Any]) -> UrlEntry:
        """An entry ``JOBDIR`` kept (:meth:`state`), or the positional list an earlier
        version kept (url, attempts, status, -, held, -, robots, tdmrep, fetched,
        dont_filter, then licenses, earlier, sent, sent_at, expires as they were added;
        before the earlier's id, a ``""`` tdmrep meant none)."""
        if isinstance(saved, Mapping):
            known = _STATE_FIELDS
            values = {name: value for name, value in saved.items() if name in known}
            for name, value in values.items():  # a hand-edited state: refused, not resumed
                if not _STATE_TYPES[name](value):
                    raise TypeError(f"{name} {value!r} is not of its field's type")
            robots = values.get("robots")
            values["robots"] = RobotsPart.of(robots) if robots else None
            return cls(**values)
        old = list(saved)
        robots = old[6]
        tdm = old[7] if len(old) > 10 else (old[7] or None)
        later = [*old[10:15], *[None, "", None, None, None][len(old[10:15]) :]]
        return cls(
            old[0], old[1], old[2], old[4], RobotsPart.of(robots) if robots else None, tdm,
            bool(old[8]), later[0], later[1] or "", later[2], later[3], later[4],
        )  # fmt: skip


#: The fields :meth:`UrlEntry.state` keeps (all but the decision, which only the running
#: crawl's readers read).
_STATE_FIELDS: Final = tuple(one.name for one in fields(UrlEntry) if one.name != "decision")


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seconds_or_none(value: Any) -> bool:
    return value is None or ((_int(value) or isinstance(value, float)) and math.isfinite(value))


def _str_or_none(value: Any) -> bool:
    return value is None or isinstance(value, str)


#: What each place of a :class:`RobotsPart` kept in ``JOBDIR`` may hold (an earlier
#: version's list may be shorter).
_ROBOTS_TYPES: Final[tuple[Any, ...]] = (
    lambda v: isinstance(v, str),  # sha256
    lambda v: isinstance(v, str),  # agent
    lambda v: v is None or _int(v),  # line
    _str_or_none,  # rule
    lambda v: isinstance(v, str),  # why
    lambda v: isinstance(v, bool),  # obeyed
    lambda v: isinstance(v, str),  # overridden
    lambda v: isinstance(v, str),  # override_expired
    lambda v: v is None or (isinstance(v, list) and all(isinstance(x, str) for x in v)),
    _seconds_or_none,  # override_ends
    lambda v: isinstance(v, str),  # addressed
    _str_or_none,  # also
)


def _robots_state(value: Any) -> bool:
    return (
        isinstance(value, list)
        and 5 <= len(value) <= len(_ROBOTS_TYPES)
        and all(check(one) for check, one in zip(_ROBOTS_TYPES, value, strict=False))
    )


#: What each field of :meth:`UrlEntry.state` may hold, as JSON reads it back.
_STATE_TYPES: Final[dict[str, Any]] = {
    "url": lambda v: isinstance(v, str),
    "attempts": _int,
    "status": lambda v: v is None or _int(v),
    "held": _int,
    "robots": lambda v: v is None or _robots_state(v),
    "tdm": lambda v: v is None or isinstance(v, str),
    "fetched": lambda v: isinstance(v, bool),
    "licenses": lambda v: (
        v is None or (isinstance(v, dict) and all(isinstance(x, str) for x in (*v, *v.values())))
    ),
    "earlier": lambda v: isinstance(v, str),
    "sent": lambda v: v is None or isinstance(v, str),
    "sent_at": _seconds_or_none,
    "expires": _seconds_or_none,
    "unscheduled": lambda v: isinstance(v, bool),
}


def _seconds(stamp: str) -> float | None:
    """POSIX seconds of an ISO 8601 UTC time as :func:`iso_time` writes it (``None``: not
    one, or a hand-edited one without its zone that the local clock cannot hold: year 1),
    half a millisecond past the one written, so that :func:`iso_time` (which cuts to the
    millisecond) writes it back the same."""
    try:
        seconds = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError, OSError):
        return None
    return seconds + 0.0005 if math.isfinite(seconds) else None
