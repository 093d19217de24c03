"""rep_audit/policy.py: c2sp.org/tlog-policy files read as the specification writes them
(its own example, two levels of groups), what it does not allow refused naming the line,
and whether a quorum stops a split view: only when any two sets of witnesses that meet it
share one (``k`` of ``n`` when ``2k > n``; groups of groups counted the same way)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rep_audit.policy import PolicyError, given, read_policy, split_view
from rep_engine.trail import notes
from tests.support import c2sp


def witness_vkey(name: str, public: bytes | None = None) -> str:
    """A witness's verifier key (type 0x04) of a random key (or ``public``)."""
    return c2sp.make_vkey(name, notes.COSIGNATURE, public or os.urandom(32))


def policy_of(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.txt"
    path.write_text(text)
    return path


def test_the_specifications_example_is_read_and_met_as_it_says(tmp_path: Path) -> None:
    """tlog-policy, "Example policy": two of the X witnesses and one of the Y witnesses."""
    names = ["X1", "X2", "X3", "Y1", "Y2", "Y3"]
    lines = [f"log {c2sp.make_vkey('example.com/log', notes.ED25519, os.urandom(32))}", ""]
    lines += [f"witness {name} {witness_vkey(f'w.example/{name}')}" for name in names[:3]]
    lines += ["group X-witnesses 2 X1 X2 X3", ""]
    lines += [f"witness {name} {witness_vkey(f'w.example/{name}')}" for name in names[3:]]
    lines += ["group Y-witnesses any Y1 Y2 Y3", "", "group X-and-Y all X-witnesses Y-witnesses"]
    policy = read_policy(str(policy_of(tmp_path, "\n".join([*lines, "quorum X-and-Y", ""]))))
    assert (len(policy.logs), list(policy.witnesses), policy.quorum) == (1, names, "X-and-Y")
    assert policy.met({"X1", "X3", "Y2"}) and not policy.met({"X1", "Y1", "Y2", "Y3"})
    assert not policy.met({"X1", "X2"})
    assert split_view(policy) == ""  # two disjoint quorums would need four X witnesses


@pytest.mark.parametrize(
    ("witnesses", "quorum", "split"),
    [(1, 1, False), (2, 1, True), (2, 2, False), (3, 1, True), (3, 2, False), (4, 2, True),
     (4, 3, False), (5, 2, True), (5, 3, False), (5, None, False)],
)  # fmt: skip
def test_k_of_n_stops_a_split_view_when_k_is_more_than_half(
    witnesses: int, quorum: int | None, split: bool
) -> None:
    keys = [notes.read_verifier_key(witness_vkey(f"w.test/{n}")) for n in range(witnesses)]
    said = split_view(given(keys, quorum))
    assert bool(said) is split
    if split:
        assert (
            said == f"--quorum {quorum} of the {witnesses} witnesses given is half of them or fewer"
        )


@pytest.mark.parametrize(
    ("groups", "split"),
    [
        ("group A any a1 a2\ngroup B any b1 b2\ngroup Q all A B\nquorum Q", True),
        ("group A all a1 a2\ngroup B any b1 b2\ngroup Q all A B\nquorum Q", False),
        ("group A 2 a1 a2\ngroup Q any A b1\nquorum Q", True),
        ("group A 2 a1 a2\ngroup Q all A b1 b2\nquorum Q", False),
        ("group Q 3 a1 a2 b1 b2\nquorum Q", False),
        ("quorum a1", False),
        ("quorum none", False),  # no witness required: said otherwise, not a split view
    ],
    ids=["any-any", "all-any", "any-of-all-and-one", "all-of-all", "3-of-4", "one", "none"],
)
def test_groups_of_groups_are_held_to_the_same_rule(
    tmp_path: Path, groups: str, split: bool
) -> None:
    """Two disjoint quorums exist when each group's members can give it twice its
    threshold, each member at most as often as it is met itself, up to twice."""
    lines = [
        f"witness {name} {witness_vkey(f'w.test/{name}')}" for name in ("a1", "a2", "b1", "b2")
    ]
    policy = read_policy(str(policy_of(tmp_path, "\n".join([*lines, groups]) + "\n")))
    assert bool(split_view(policy)) is split


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("witness a {w1}\n", "no quorum line"),
        ("witness a {w1}\nquorum a\nquorum a\n", "line 3: a second quorum line"),
        ("quorum b\n", "line 1: quorum 'b': no witness or group of that name on a line before"),
        ("group g any a\nwitness a {w1}\nquorum g\n", "line 1: member 'a': no witness"),
        ("witness a {w1}\nwitness a {w2}\nquorum a\n", "line 2: the name 'a' is taken"),
        ("witness none {w1}\nquorum none\n", "line 1: the name 'none' is taken"),
        ("witness a {w1}\nwitness b {w1again}\nquorum a\n", "line 2: the public key of witness"),
        ("witness a {w1}\ngroup g 2 a\nquorum g\n", "line 2: threshold '2': all, any, or 1 to 1"),
        ("witness a {w1}\ngroup g 0 a\nquorum g\n", "line 2: threshold '0'"),
        ("witness a {w1}\ngroup g any a a\nquorum g\n", "line 2: member 'a' is a member already"),
        ("witness a {w1}\nwitness b {w2}\ngroup g any a\ngroup h any a b\nquorum h\n",
         "line 4: member 'a' is a member already"),
        ("witness a {log}\nquorum a\n", "line 1: a verifier key of type 1, not a witness's"),
        ("log {w1}\nquorum none\n", "line 1: a verifier key of type 4, not a log's"),
        ("log {log}\nlog {log}\nquorum none\n", "line 2: the key of an earlier log line"),
        ("witness a {w1}\nwitnesses b {w2}\nquorum a\n", "line 2: not a log, witness, group"),
        ("witness a {w1}\x0b\nquorum a\n", "line 1: a control character"),
        ("witness a {identity}\nquorum a\n", "line 1: the key of w.test/id is of a kind anyone"),
    ],
    ids=["no-quorum", "two-quorums", "undefined-quorum", "later-member", "name-twice", "none",
         "same-key", "threshold-high", "threshold-zero", "member-twice", "member-of-two",
         "log-as-witness", "witness-as-log", "log-twice", "keyword", "control", "identity"],
)  # fmt: skip
def test_what_tlog_policy_does_not_allow_is_refused_naming_the_line(
    tmp_path: Path, text: str, said: str
) -> None:
    public = os.urandom(32)
    path = policy_of(tmp_path, text.format(
        w1=witness_vkey("w.test/1", public), w2=witness_vkey("w.test/2"),
        w1again=witness_vkey("w.test/1-again", public),
        log=c2sp.make_vkey("example.com/log", notes.ED25519, os.urandom(32)),
        identity=witness_vkey("w.test/id", bytes([1]) + bytes(31)),
    ))  # fmt: skip
    with pytest.raises(PolicyError) as refused:
        read_policy(str(path))
    assert f"--policy {path}: {said}" in str(refused.value), refused.value
