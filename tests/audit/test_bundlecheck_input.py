"""Input that is no bundle, no trail or no key, however deep or odd, is one line on stderr
naming the tool and exit status 2, never a traceback (a JSON nested past Python's
recursion limit; a bundle without its site; a key set with no Ed25519 key), and a line
of a trail nested so deep is a line that is not JSON, said as such."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tests.support.recheck import recheck_trail
from tests.support.signatures import operator_key
from tests.support.tools import audit_streams, audit_tool

#: JSON nested far past the recursion limit.
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    operator_key(tmp_path / "key.pem")
    trail = recheck_trail(tmp_path, tmp_path / "trail.jsonl",
                          f"REP_AUDIT_SIGNING_KEY={tmp_path / 'key.pem'}")  # fmt: skip
    made = tmp_path / "b.json"
    assert (
        audit_tool("bundle", str(trail), "--site", "http://site.test", "--out", str(made))[0] == 0
    )
    return made


def test_five_bad_inputs_are_one_line_and_exit_2(bundle: Path, tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    loaded = json.loads(bundle.read_text())
    loaded["lines"][0]["text"] = '{"type": "run", "x": ' + DEEP + "}"
    deep_line = tmp_path / "deep-line.json"
    deep_line.write_text(json.dumps(loaded))
    loaded = json.loads(bundle.read_text())
    del loaded["site"]
    siteless = tmp_path / "siteless.json"
    siteless.write_text(json.dumps(loaded))
    rsa_only = tmp_path / "rsa.jwks"
    rsa_only.write_text(json.dumps({"keys": [{"kty": "RSA", "n": "AQAB", "e": "AQAB"}]}))
    empty = tmp_path / "empty.jwks"
    empty.write_text('{"keys": []}')
    cases = [
        (("check-bundle", str(deep)), "not a site bundle (RecursionError"),
        (("check-bundle", str(deep_line)), "its line 1 is no line of a trail"),
        (("verify", str(deep.with_suffix(".jsonl"))), "not an audit trail"),
        (("check-bundle", str(siteless)), "not a site bundle (KeyError: 'site')"),
        (("check-bundle", str(bundle), "--key", str(rsa_only)), "a JWK Set with no Ed25519 key"),
        (("check-bundle", str(bundle), "--key", str(empty)), "a JWK Set with no Ed25519 key"),
    ]
    deep.with_suffix(".jsonl").write_text(DEEP + "\n")
    for argv, said in cases:
        status, out, err = audit_streams(*argv)
        assert (status, out, len(err.splitlines())) == (2, "", 1), (argv, out, err)
        assert err.startswith("scrapy_rep: error: ") and said in err, (argv, err)


def test_a_trail_line_nested_too_deep_is_a_line_that_is_not_json(tmp_path: Path) -> None:
    trail = recheck_trail(tmp_path, tmp_path / "trail.jsonl")
    lines = trail.read_text().splitlines(True)
    lines.insert(3, DEEP + "\n")
    trail.write_text("".join(lines))
    status, out, err = audit_streams("verify", str(trail))
    assert status == 1 and err == "" and "line 4: " in out, out


def test_a_public_key_of_another_kind_for_check_bundle_is_said_to_be_no_ed25519_key(
    bundle: Path, tmp_path: Path
) -> None:
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=1024).public_key()
    (tmp_path / "rsa.pub").write_bytes(rsa_key.public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH))
    ssh = operator_key(tmp_path / "other.pem").public_key()
    (tmp_path / "id.pub").write_bytes(ssh.public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH))
    status, _, err = audit_streams("check-bundle", str(bundle), "--key", str(tmp_path / "rsa.pub"))
    assert status == 2 and "holds an RSA key, not an Ed25519 one" in err, err
    status, out, _ = audit_streams("check-bundle", str(bundle), "--key", str(tmp_path / "id.pub"))
    assert status == 1 and "not by the key of --key" in out, out  # read: another key
