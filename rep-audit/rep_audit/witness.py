"""A trail's history held by others than its operator (docs/keys.md, "Witnesses"): a witness
cosigns each tree head's checkpoint only if it extends the last one it cosigned of that
log (c2sp.org/tlog-witness's add-checkpoint, over files; the cosignature of
c2sp.org/tlog-cosignature, Ed25519 v1, with its timestamp), and the operator gathers
cosignatures from the witnesses it names (``audit cosign``), which a site's owner then
requires of a bundle (``check-bundle --witness``). An operator who rewrites a trail and
signs its heads again cannot have them cosigned: each witness holds the root it cosigned.

Pure: the witness reads a request and its state folder, and prints its cosignature; the
gatherer runs each witness's command (a local ``rep-audit witness``, or ``ssh`` or
``curl`` to one elsewhere) with the request on its standard input.
"""

from __future__ import annotations

import argparse
import hashlib
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

from rep_audit.bundle import _first_pass, proved_head
from rep_audit.cliargs import EXIT_CLEAN, EXIT_DIFFERENCES
from rep_engine import keys
from rep_engine.records import iso_time, text, whole
from rep_engine.trail import notes
from rep_engine.trail.file import lock, replacing, same_file
from rep_engine.trail.merkle import EMPTY_ROOT, verify_consistency
from rep_engine.trail.read import Trail, TrailError
from rep_engine.trail.terminal import printable

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

#: How long a witness's command may take to answer (seconds).
WITNESS_TIMEOUT: Final = 60
#: A cosignature dated more than this after the clock of its checker is refused
#: (tlog-cosignature: "verifiers MAY reject cosignatures with timestamps in the future").
FUTURE: Final = 3600


class Refused(Exception):
    """A checkpoint the witness does not cosign, and why (tlog-witness's status in
    words); ``size``: the size of the log it holds, when the request's old size is not it
    (409 Conflict: the client sends it again from that size)."""

    def __init__(self, why: str, size: int | None = None) -> None:
        super().__init__(why)
        self.size = size


def cosignature(private: Ed25519PrivateKey, name: str, checkpoint: str, now: int) -> str:
    """The witness ``name``'s cosignature line of the checkpoint's text at ``now``
    (tlog-cosignature: key ID of type 0x04, then the timestamp, then the signature)."""
    public = keys.raw_public(private.public_key())
    signed = private.sign(notes.cosigned_message(now, checkpoint))
    key = notes.key_id(name, notes.COSIGNATURE, public)
    return notes.signature_line(name, key, now.to_bytes(8, "big") + signed)


def cosigned_at(
    checkpoint: str, signatures: list[notes.Signature], witness: notes.VerifierKey
) -> int | None:
    """The time of ``witness``'s cosignature of the checkpoint's text among
    ``signatures`` that verifies, or ``None``."""
    public = keys.public_key(witness.public, witness.name)
    for found in signatures:
        if (found.name, found.key_id) != (witness.name, witness.key_id):
            continue
        stamp = int.from_bytes(found.signature[:8], "big")
        message = notes.cosigned_message(stamp, checkpoint)
        if stamp < 1 << 63 and keys.verify(public, found.signature[8:], message):
            return stamp
    return None


def add_checkpoint(
    request: str, state: Path, logs: list[notes.VerifierKey], private: Ed25519PrivateKey,
    name: str, now: int,
) -> str:  # fmt: skip
    """tlog-witness's add-checkpoint: the cosignature line of the request's checkpoint,
    which must be signed by a log of ``logs`` (its verifier key named after its origin)
    and extend the last checkpoint of that log kept in ``state``, which it replaces.
    Raises :class:`Refused`, or :class:`~rep_engine.trail.notes.NoteError` for a request
    that is none."""
    old, proof, note = notes.read_request(request)
    checkpoint, signatures = notes.read_note(note)
    origin, size, root = notes.read_checkpoint(checkpoint)
    trusted = [log for log in logs if log.name == origin]
    if not trusted:
        raise Refused(f"unknown log {origin!r}: this witness cosigns only the logs of its --log")
    log = trusted[0]
    public = keys.public_key(log.public, origin)
    found = [s for s in signatures if (s.name, s.key_id) == (origin, log.key_id)]
    if not found or not all(keys.verify(public, s.signature, checkpoint.encode()) for s in found):
        raise Refused(f"the checkpoint of {origin} is not signed by its log's key")
    if old > size:
        raise Refused(f"old size {old} is larger than the checkpoint's {size}")
    kept = state / f"{hashlib.sha256(origin.encode()).hexdigest()}.checkpoint"
    with (state / ".lock").open("ab") as held:
        lock(held, state / ".lock")  # the check and the new state, one at a time
        _, held_size, held_root = _kept(kept)
        if old != held_size:
            raise Refused(f"this witness holds {origin} at size {held_size}, not {old}: "
                          f"send the request again from old {held_size}", held_size)  # fmt: skip
        _check_extension(old, size, held_root, root, proof)
        with replacing(kept) as file:
            file.write(checkpoint.encode())
    return cosignature(private, name, checkpoint, now)


def _kept(path: Path) -> notes.Checkpoint:
    """The checkpoint a witness holds at ``path`` (size 0, the empty root: none yet)."""
    try:
        return notes.read_checkpoint(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return notes.Checkpoint("", 0, EMPTY_ROOT)
    except (OSError, ValueError) as error:
        raise TrailError(f"{path}: not a witness's state ({error})") from None


def _check_extension(old: int, size: int, held: bytes, root: bytes, proof: list[bytes]) -> None:
    """tlog-witness's checks of a checkpoint against the one held (422 each)."""
    rewritten = "the log's history was rewritten"
    if size == 0 and root != EMPTY_ROOT:
        raise Refused("a checkpoint of size 0 whose root is not the empty tree's")
    if old == 0 and proof:
        raise Refused("a consistency proof from size 0: the empty tree needs none")
    if old == size and (root != held or proof):
        raise Refused(f"the checkpoint of size {size} has another root than the one this "
                      f"witness cosigned: {rewritten}")  # fmt: skip
    if 0 < old < size and not verify_consistency(old, size, held, root, proof):
        raise Refused(f"the checkpoint of size {size} does not extend the one of size "
                      f"{old} this witness cosigned (its consistency proof fails): "
                      f"{rewritten}")  # fmt: skip


def gather(path: str, commands: list[str], at: int | None) -> tuple[str, list[str]]:
    """The checkpoint of the trail's last tree head (``at``: the head at that line) with
    the cosignatures of the witnesses ``commands`` run (each given add-checkpoint's request
    on its standard input, from the head before, which a witness cosigned last when it is
    asked after each run; its cosignature lines read from its output; sent again from the
    size a witness holds, when it says another); and what each refusal said."""
    trail = Trail(path)
    picked = _first_pass(trail, None)
    number, head, tree = proved_head(trail, picked, at)
    earlier = [whole(record.get("size")) or 0 for _, record in picked.heads[:-1]]
    note = text(head.get("checkpoint"))
    if not note:
        raise TrailError(f"{path}: the tree head at line {number} is unsigned: a witness "
                         "cosigns a signed checkpoint (REP_AUDIT_SIGNING_KEY)")  # fmt: skip
    cosigned, refusals = note, []
    for command in commands:
        old, held = (earlier or [0])[-1], None  # the last head: a witness cosigned it
        for _ in range(2):
            proof = tree.consistency_proof(old) if 0 < old < tree.size else []
            answer, said = _run(command, notes.request_text(old, proof, note))
            held = int(answer) if answer.strip().isdigit() else None
            if held is None or held == old or held > tree.size:
                break
            old = held
        if held is not None and held > tree.size:
            said = (f"it cosigned {held} line(s) of this log, more than this head covers "
                    f"({tree.size}): lines were cut, or the log's history was "
                    "rewritten")  # fmt: skip
        try:
            _, lines = notes.read_note(cosigned + answer)
        except notes.NoteError:
            lines = []
        if said or not answer.strip() or not lines:
            refusals.append(f"{command}: {said or answer.strip() or 'no cosignature'}")
        else:
            cosigned += answer
    return cosigned, refusals


def _run(command: str, request: str) -> tuple[str, str]:
    """What a witness's command printed given ``request``, and why it refused (``""``:
    it exited 0)."""
    try:
        done = subprocess.run(shlex.split(command), input=request, capture_output=True,
                              text=True, timeout=WITNESS_TIMEOUT, check=False)  # fmt: skip
    except (OSError, ValueError, subprocess.SubprocessError) as error:
        return "", f"could not be run ({error})"
    refused = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    return done.stdout, refused if done.returncode else ""


def witness_keys(given: list[str]) -> list[notes.VerifierKey]:
    """The witnesses of ``check-bundle --witness``: each a verifier key of type 0x04, or
    the file holding one."""
    found = []
    for one in given:
        try:
            saying = Path(one).read_text(encoding="utf-8") if Path(one).is_file() else one
            key = notes.read_verifier_key(saying)
        except (OSError, ValueError) as error:
            raise TrailError(f"--witness {one}: {error}") from None
        if key.kind != notes.COSIGNATURE:
            raise TrailError(f"--witness {one}: a log's verifier key (type 1), not a "
                             "witness's (type 4: audit vkey --witness)")  # fmt: skip
        found.append(key)
    return found


def witnessed(
    bundle: dict[str, Any], witnesses: list[notes.VerifierKey], operator: bytes, latest: str
) -> tuple[list[str], int]:
    """What each witness's cosignature in ``bundle`` says (a line each: counted, or why
    not) and how many count (``check-bundle --witness``): a witness counts that cosigned,
    after ``latest`` (the time of the bundle's last record), the bundle's checkpoint or an
    earlier one of the same log that its consistency proofs lead to and that holds every
    line of the bundle; never one whose key is the operator's (``operator``, raw)."""
    head = bundle["head"]
    try:
        checkpoint, _ = notes.read_note(text(head.get("checkpoint")))
        origin = notes.read_checkpoint(checkpoint).origin
    except notes.NoteError:
        return ["the tree head has no checkpoint: no witness can have cosigned it"], 0
    covered = max((line["line"] for line in bundle["lines"]), default=0)
    sizes = {checkpoint: head["size"]}
    for earlier in bundle["consistency"]:  # trees the head's is proved to extend
        size, root = earlier["size"], bytes.fromhex(earlier["root"])
        if size >= covered and verify_consistency(
            size, head["size"], root, bytes.fromhex(head["root"]), earlier["proof"]
        ):
            sizes[notes.checkpoint_text(origin, size, root)] = size
    told, counted = [], 0
    for witness in witnesses:
        stamps = sorted(
            (stamp, sizes[body])
            for body, signatures in map(notes.read_note, bundle["cosigned"])
            if body in sizes and (stamp := cosigned_at(body, signatures, witness)) is not None
        )
        said, (stamp, size) = f"witness {witness.name}", (stamps or [(0, 0)])[-1]
        if witness.public == operator:
            said += ": not counted: its key is the operator's own key: it witnesses nothing"
        elif not stamps:
            said += (f": not counted: no cosignature of a checkpoint of {origin} that this "
                     f"bundle's proofs lead to and that holds its {covered} line(s)")  # fmt: skip
        elif stamp > time.time() + FUTURE:
            said += f": not counted: its cosignature is dated {stamp}, in the future"
        elif iso_time(stamp)[:19] < latest[:19]:  # whole seconds, as cosignatures are
            said += (f": not counted: cosigned at {iso_time(stamp)}, before the bundle's "
                     f"last record ({latest}): an old cosignature")  # fmt: skip
        else:
            counted += 1
            said += f": cosigned the checkpoint of {size} line(s) of {origin} at {iso_time(stamp)}"
            if size < head["size"]:
                said += f" (the head's {head['size']} lines: those after line {size} unwitnessed)"
        told.append(said)
    return told, counted


def witnessing(options: argparse.Namespace, out: TextIO) -> int:
    """``audit witness``, ``audit cosign`` or ``audit vkey``: the exit status (0 done; 1 the
    checkpoint, or a witness, refused). Raises :class:`TrailError` (or a note's or a key's
    error) for input it cannot use."""
    if options.command == "vkey":
        public = keys.raw_public(keys.read_public_key(options.trail))
        kind = notes.COSIGNATURE if options.witness else notes.ED25519
        print(notes.verifier_key(options.name, kind, public), file=out)
        return EXIT_CLEAN
    if options.command == "cosign":
        if Path(options.out).exists() and same_file(Path(options.out), Path(options.trail)):
            raise TrailError(f"--out {options.out} is the trail: name another file")
        cosigned, refusals = gather(options.trail, options.witness, options.at)
        with replacing(Path(options.out)) as file:
            file.write(cosigned.encode())
        for refusal in refusals:
            print(printable(f"refused: {refusal}"), file=sys.stderr)
        got = cosigned.count(notes.DASH) - 1
        print(f"{options.out}: {got} cosignature(s) of {len(options.witness)} witness(es)",
              file=out)  # fmt: skip
        return EXIT_DIFFERENCES if refusals else EXIT_CLEAN
    private = keys.read_private_key(options.key)
    logs = [notes.read_verifier_key(log) for log in options.log]
    if any(log.kind != notes.ED25519 for log in logs):
        raise TrailError("--log: a witness's verifier key (type 4), not a log's (type 1)")
    state = Path(options.state)
    if not state.is_dir():
        raise TrailError(f"--state {state}: not a folder")
    try:
        given = options.trail
        request = sys.stdin.read() if given == "-" else Path(given).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TrailError(f"{options.trail}: cannot be read ({error})") from None
    try:
        print(add_checkpoint(request, state, logs, private, options.name, int(time.time())),
              end="", file=out)  # fmt: skip
    except Refused as refused:
        if refused.size is not None:  # tlog-witness's 409 body: the size it holds
            print(refused.size, file=out)
        print(printable(f"rep-audit witness: refused: {refused}"), file=sys.stderr)
        return EXIT_DIFFERENCES
    return EXIT_CLEAN
