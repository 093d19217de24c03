"""scrapy_rep/keydirectory.py: ``python -m scrapy_rep key-directory``, the key directory an
operator publishes, checked as a site reads it (tests/support/signatures.py: the key ids
recomputed from RFC 7638, nothing of the signer's code)."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from scrapy_rep.__main__ import main as scrapy_rep_main
from scrapy_rep.keydirectory import main
from tests.support.signatures import directory_keys, operator_key


def test_the_directory_holds_each_key_once_its_kid_its_thumbprint(tmp_path: Path) -> None:
    """The signing key and an older key kept while the new one takes over (its public half
    alone): two keys, in order, each with its thumbprint as kid, no private part."""
    new = operator_key(tmp_path / "new.pem")
    old = operator_key(tmp_path / "old.pem")
    (tmp_path / "old.pub").write_bytes(
        old.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    )
    out = io.StringIO()
    args = [str(tmp_path / name) for name in ("new.pem", "old.pub", "new.pem")]
    assert scrapy_rep_main(["key-directory", *args], out) == 0
    found = directory_keys(json.loads(out.getvalue()))
    raw = [key.public_bytes(Encoding.Raw, PublicFormat.Raw) for key in found.values()]
    assert raw == [k.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw) for k in (new, old)]
    assert "PRIVATE" not in out.getvalue() and '"d"' not in out.getvalue()


def test_a_file_without_a_key_is_exit_2_naming_it(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err):
        assert main([str(tmp_path / "notes.txt")], out) == 2
        assert main([], out) == 2  # no file named: a usage error
    assert out.getvalue() == ""
    assert f"scrapy_rep: error: {tmp_path / 'notes.txt'}: no Ed25519 public key" in err.getvalue()


def test_the_help_says_where_and_how_to_publish() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["--help"]) == 0
    said = " ".join(out.getvalue().split())
    assert "/.well-known/http-message-signatures-directory" in said
    assert "application/http-message-signatures-directory+json" in said
    assert "openssl genpkey -algorithm ed25519" in said
