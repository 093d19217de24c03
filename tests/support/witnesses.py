"""A signed re-check trail, its operator and its witnesses, for the tests of
``audit witness``, ``audit vkey`` and ``check-bundle --witness`` (tests/audit/
test_witness*.py): the witness asked in this process, each with its own key and state
folder; bundles with cosigned checkpoints put in them as a forger would."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from rep_engine.trail import notes
from rep_engine.trail.merkle import MerkleTree, leaf_hash
from tests.support.recheck import recheck_trail
from tests.support.signatures import operator_key, public_key_file
from tests.support.tools import audit_streams, audit_tool

SITE = "http://site.test"
WITNESS = "witness.test/w1"


@dataclass
class Log:
    """A signed trail, its operator's key, a witness's key (``witness.pem``) and state
    (``state``)."""

    folder: Path
    trail: Path
    operator: Ed25519PrivateKey
    witness: Ed25519PrivateKey

    def heads_of(self, trail: Path | None = None) -> list[dict[str, Any]]:
        lines = (trail or self.trail).read_text().splitlines()
        return [json.loads(line) for line in lines if '"type":"head"' in line]

    @property
    def heads(self) -> list[dict[str, Any]]:
        return self.heads_of()

    @property
    def origin(self) -> str:
        return str(self.heads[-1]["checkpoint"].split("\n")[0])

    def vkey(self, key: str = "key.pem", name: str = "", *more: str) -> str:
        return audit_tool("vkey", str(self.folder / key), "--name", name or self.origin,
                          *more)[1].strip()  # fmt: skip

    def request(self, old: int, note: str | None = None, trail: Path | None = None) -> str:
        """The add-checkpoint request of the last head of ``trail`` (default: the log's),
        or of ``note``, from size ``old``."""
        lines = (trail or self.trail).read_bytes().splitlines(True)
        size = self.heads_of(trail)[-1]["size"]
        tree = MerkleTree(leaf_hash(line) for line in lines[:size])
        proof = tree.consistency_proof(old) if 0 < old < size else []
        return notes.request_text(old, proof, note or self.heads_of(trail)[-1]["checkpoint"])

    def ask(
        self, request: str, *logs: str, key: str = "witness.pem", name: str = WITNESS,
        state: str = "state",
    ) -> tuple[int, str, str]:  # fmt: skip
        """``audit witness`` given ``request`` (trusting this log, or ``logs``), as the
        witness ``name`` of the key file ``key`` and the state folder ``state``."""
        path = self.folder / "request.txt"
        path.write_text(request)
        (self.folder / state).mkdir(exist_ok=True)
        given = [arg for log in (logs or (self.vkey(),)) for arg in ("--log", log)]
        return audit_streams("witness", str(path), "--key", str(self.folder / key), "--name",
                             name, "--state", str(self.folder / state), *given)  # fmt: skip


def signed_log(tmp_path: Path) -> Log:
    """A re-check's trail of one run, signed by a new operator's key (``key.pem``), and a
    witness's key (``witness.pem``)."""
    operator, witness = operator_key(tmp_path / "key.pem"), operator_key(tmp_path / "witness.pem")
    (tmp_path / "state").mkdir()
    trail = recheck_trail(tmp_path, tmp_path / "trail.jsonl",
                          f"REP_AUDIT_SIGNING_KEY={tmp_path / 'key.pem'}")  # fmt: skip
    return Log(tmp_path, trail, operator, witness)


def with_node(request: str) -> str:
    """``request`` with a consistency proof line more (a hash of zeroes)."""
    return request.replace("\n\n", f"\n{base64.b64encode(bytes(32)).decode()}\n\n", 1)


def resigned_note(log: Log, size: int, root: bytes, extra: str = "") -> str:
    """A checkpoint of the log signed by its operator (who may sign anything)."""
    text = notes.checkpoint_text(log.origin, size, root) + extra
    key = notes.key_id(log.origin, notes.ED25519, log.operator.public_key().public_bytes_raw())
    return f"{text}\n{notes.signature_line(log.origin, key, log.operator.sign(text.encode()))}"


def cosigned_bundle(
    log: Log, *notes_given: str, trail: Path | None = None, name: str = "b.json"
) -> Path:
    """The bundle of :data:`SITE` of ``trail`` (default: the log's) with the cosigned
    checkpoints ``notes_given`` put in it (a forger edits the bundle: ``audit bundle``
    refuses a checkpoint of another log)."""
    bundle = log.folder / name
    made = audit_tool("bundle", str(trail or log.trail), "--site", SITE, "--out", str(bundle))
    assert made[0] == 0, made
    loaded = json.loads(bundle.read_text())
    loaded["cosigned"] = list(notes_given)
    bundle.write_text(json.dumps(loaded))
    return bundle


def witnessed_check(log: Log, bundle: Path, *more: str, key: bool = True) -> tuple[int, str]:
    """``check-bundle BUNDLE --key PUBLIC MORE`` (``key``: without ``--key``,
    ``--unsigned``): the exit status, and its output and errors."""
    given = ["--key", str(public_key_file(log.folder / "key.pem"))] if key else ["--unsigned"]
    status, out, err = audit_streams("check-bundle", str(bundle), *given, *more)
    return status, out + err
