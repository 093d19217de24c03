"""Which witnesses a site requires of a bundle (``check-bundle --witness … --quorum N``, or
``--policy FILE``), as c2sp.org/tlog-policy writes it, and whether that quorum stops a
split view (pure).

A policy names logs (``log <vkey>``), witnesses (``witness <name> <vkey>``), groups of
them that witness a checkpoint when ``k`` of their members do (``group <name> all|any|k
<name>…``), and the quorum (``quorum <name>``, or ``none``). ``--witness V1 --witness V2
--quorum N`` is the policy of one group, ``N`` of the witnesses given (default: all).

A quorum stops a split view only if any two sets of witnesses that meet it share one
(c2sp.org/tlog-cosignature: "Log clients can verify a quorum of cosignatures to prevent
split-view attacks"): an honest witness cosigns one history, so an operator who shows one
history to some witnesses and another to the rest has the second cosigned only by
witnesses the first needs none of. ``k`` of ``n`` witnesses does so when ``2k > n``, a
majority; :func:`split_view` finds two disjoint quorums of any policy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final, NamedTuple

from rep_engine.keys import degenerate
from rep_engine.trail import notes
from rep_engine.trail.notes import NoteError, VerifierKey

#: The quorum that requires no witness (tlog-policy, "Defining the quorum").
NONE: Final = "none"
#: The name of the one group ``--witness … --quorum N`` makes.
GIVEN: Final = "--witness"
#: A policy file larger than this is none (tlog-policy asks for 32 logs, witnesses and
#: groups at least: a few kilobytes, a few hundred with ML-DSA-44 keys).
MAX_POLICY_BYTES: Final = 1 << 20
#: tlog-policy, "Character set": tab, newline and the octets from 0x20 but 0x7F.
_BAD_OCTET: Final = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")
#: The key types of a log's signature and of a witness's cosignature (tlog-checkpoint,
#: tlog-cosignature).
_LOG_TYPES: Final = (notes.ED25519, notes.MLDSA44)
_WITNESS_TYPES: Final = (notes.COSIGNATURE, notes.MLDSA44)


class PolicyError(ValueError):
    """A policy that cannot be used, and why (the line said)."""


class Policy(NamedTuple):
    """The logs a checkpoint may be signed by (none: any), the witnesses by their names,
    each group's threshold and members, and the quorum's name."""

    logs: tuple[VerifierKey, ...]
    witnesses: dict[str, VerifierKey]
    groups: dict[str, tuple[int, tuple[str, ...]]]
    quorum: str

    def met(self, counted: set[str], name: str | None = None) -> bool:
        """Whether the witnesses ``counted`` (their names) meet the quorum (``name``: that
        witness's or group's)."""
        name = self.quorum if name is None else name
        if name == NONE:
            return True
        if name in self.witnesses:
            return name in counted
        threshold, members = self.groups[name]
        return sum(self.met(counted, member) for member in members) >= threshold

    def disjoint(self, name: str | None = None) -> int:
        """How many sets of witnesses that share none can each meet the quorum (``name``:
        that witness's or group's), counted up to 2. A group of threshold ``k`` meets it
        ``m`` times over when its members can give ``m * k`` memberships, each at most
        ``m`` (once to each set), a member at most as many times as it meets it itself."""
        name = self.quorum if name is None else name
        if name == NONE:
            return 2
        if name in self.witnesses:
            return 1
        threshold, members = self.groups[name]
        each = [self.disjoint(member) for member in members]
        return max(m for m in (0, 1, 2) if sum(min(e, m) for e in each) >= m * threshold)


def split_view(policy: Policy) -> str:
    """Why ``policy``'s quorum does not stop a split view (``""``: it does): two sets of
    its witnesses that share none can each meet it."""
    if policy.quorum == NONE or policy.disjoint() < 2:
        return ""
    if policy.quorum == GIVEN:
        threshold, members = policy.groups[GIVEN]
        return (f"--quorum {threshold} of the {len(members)} witnesses given is half of them "
                "or fewer")  # fmt: skip
    return f"its quorum {policy.quorum!r} can be met twice by witnesses that share none"


def given(witnesses: list[VerifierKey], quorum: int | None) -> Policy:
    """The policy of ``--witness`` (each a verifier key) and ``--quorum`` (default: all of
    them); :class:`PolicyError` for a quorum out of range, a key given twice or one that
    is no witness's."""
    if quorum is not None and not 0 < quorum <= len(witnesses):
        raise PolicyError(f"--quorum {quorum}: give 1 to the {len(witnesses)} --witness given")
    names: dict[str, VerifierKey] = {}
    for number, key in enumerate(witnesses, 1):
        _add_witness(names, f"#{number}", _usable(key, f"--witness {key.name}"),
                     f"--witness {key.name}")  # fmt: skip
    group = (quorum or len(witnesses), tuple(names))
    return Policy((), names, {GIVEN: group}, GIVEN)


def read_policy(path: str) -> Policy:
    """The policy in the file at ``path`` (c2sp.org/tlog-policy, "Policy file syntax and
    structure"); :class:`PolicyError` naming the line that is wrong."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_POLICY_BYTES + 1)
    except OSError as error:
        why = error.strerror or error
        raise PolicyError(f"--policy {path}: cannot be read ({why})") from None
    if len(data) > MAX_POLICY_BYTES:
        raise PolicyError(f"--policy {path}: larger than {MAX_POLICY_BYTES} bytes, no policy")
    logs: list[VerifierKey] = []
    witnesses: dict[str, VerifierKey] = {}
    groups: dict[str, tuple[int, tuple[str, ...]]] = {}
    quorum = ""
    for number, raw in enumerate(data.split(b"\n"), 1):
        where = f"--policy {path}: line {number}"
        if _BAD_OCTET.search(raw):
            raise PolicyError(f"{where}: a control character (tlog-policy: tab and newline only)")
        words = raw.decode("utf-8", "surrogateescape").replace("\t", " ").split()
        if not words or words[0].startswith("#"):
            continue
        keyword, rest = words[0], words[1:]
        if keyword == "log" and len(rest) in (1, 2):
            key = _vkey(rest[0], _LOG_TYPES, "a log's", where)
            if any(log.public == key.public for log in logs):
                raise PolicyError(f"{where}: the key of an earlier log line (tlog-policy: "
                                  "duplicate logs are not allowed)")  # fmt: skip
            logs.append(key)
        elif keyword == "witness" and len(rest) in (2, 3):
            _name(rest[0], witnesses, groups, where)
            _add_witness(witnesses, rest[0], _vkey(rest[1], _WITNESS_TYPES, "a witness's",
                                                    where), where)  # fmt: skip
        elif keyword == "group" and len(rest) >= 3:
            _name(rest[0], witnesses, groups, where)
            groups[rest[0]] = _group(rest[1], rest[2:], witnesses, groups, where)
        elif keyword == "quorum" and len(rest) == 1:
            if quorum:
                raise PolicyError(f"{where}: a second quorum line (tlog-policy: exactly one)")
            if rest[0] != NONE and rest[0] not in witnesses and rest[0] not in groups:
                raise PolicyError(f"{where}: quorum {rest[0]!r}: no witness or group of that "
                                  "name on a line before")  # fmt: skip
            quorum = rest[0]
        else:
            raise PolicyError(f"{where}: not a log, witness, group or quorum line "
                              f"({raw[:60].decode('utf-8', 'replace')!r})")  # fmt: skip
    if not quorum:
        raise PolicyError(f"--policy {path}: no quorum line (tlog-policy: exactly one)")
    return Policy(tuple(logs), witnesses, groups, quorum)


def _vkey(text: str, types: tuple[int, ...], whose: str, where: str) -> VerifierKey:
    try:
        key = notes.read_verifier_key(text)
    except NoteError as error:
        raise PolicyError(f"{where}: {error}") from None
    if key.kind not in types:
        raise PolicyError(f"{where}: a verifier key of type {key.kind}, not {whose} "
                          f"({' or '.join(map(str, types))})")  # fmt: skip
    return _usable(key, where)


def _usable(key: VerifierKey, where: str) -> VerifierKey:
    """``key``, unless anyone can sign for it (:func:`rep_engine.keys.degenerate`)."""
    if degenerate(key.public):
        raise PolicyError(f"{where}: the key of {key.name} is of a kind anyone can sign "
                          "for (a point of small order, an ML-DSA-44 key whose t1 is "
                          "zero): not a key")  # fmt: skip
    return key


def _name(name: str, witnesses: Mapping[str, object], groups: Mapping[str, object],
          where: str) -> None:  # fmt: skip
    """A new name of a witness or group (tlog-policy: one namespace; ``none`` is taken)."""
    if name == NONE or name in witnesses or name in groups:
        raise PolicyError(f"{where}: the name {name!r} is taken")


def _add_witness(witnesses: dict[str, VerifierKey], name: str, key: VerifierKey,
                 where: str) -> None:  # fmt: skip
    """``key`` added as the witness ``name``, unless an earlier witness has its public key
    (tlog-policy: duplicate witnesses are not allowed; tlog-cosignature: one key cannot
    serve two cosigners: each key has one vote)."""
    for other in witnesses.values():
        if other.public == key.public:
            raise PolicyError(f"{where}: the public key of witness {other.name} again, "
                              f"under the name {key.name}: one key, one vote "
                              "(tlog-cosignature)")  # fmt: skip
    witnesses[name] = key


def _group(
    threshold: str, members: list[str], witnesses: dict[str, VerifierKey],
    groups: dict[str, tuple[int, tuple[str, ...]]], where: str,
) -> tuple[int, tuple[str, ...]]:  # fmt: skip
    """A group's threshold and members (tlog-policy, "Defining a witness group": names of
    lines before, each a member once in the whole policy, ``1 <= k <= n``)."""
    listed = {member for _, named in groups.values() for member in named}
    for member in members:
        if member not in witnesses and member not in groups:
            raise PolicyError(f"{where}: member {member!r}: no witness or group of that name "
                              "on a line before")  # fmt: skip
        if member in listed or members.count(member) > 1:
            raise PolicyError(f"{where}: member {member!r} is a member already (tlog-policy: "
                              "each name a group member once)")  # fmt: skip
    count = {"all": len(members), "any": 1}.get(threshold)
    if count is None and re.fullmatch(r"[1-9][0-9]{0,5}", threshold):
        count = int(threshold)
    if count is None or not 1 <= count <= len(members):
        raise PolicyError(f"{where}: threshold {threshold!r}: all, any, or 1 to "
                          f"{len(members)}")  # fmt: skip
    return count, tuple(members)
