"""scrapy_rep/keydirectory.py: ``python -m scrapy_rep key-directory``, the key directory an
operator publishes, checked as a site reads it (tests/support/signatures.py: the key ids
recomputed from RFC 7638, nothing of the signer's code)."""

from __future__ import annotations

import base64
import hashlib
import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from rep_engine import keys
from scrapy_rep.__main__ import main as scrapy_rep_main
from scrapy_rep.keydirectory import signed_directory
from tests.support.signatures import RFC9421_PRIVATE, directory_keys, operator_key


def key_directory(argv: list[str], out: io.StringIO | None = None) -> int:
    """``python -m scrapy_rep key-directory ARGV``."""
    return scrapy_rep_main(["key-directory", *argv], out)


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
        assert key_directory([str(tmp_path / "notes.txt")], out) == 2
        assert key_directory([], out) == 2  # no file named: a usage error
    assert out.getvalue() == ""
    assert f"scrapy_rep: error: {tmp_path / 'notes.txt'}: no Ed25519 public key" in err.getvalue()


def test_the_help_says_where_and_how_to_publish() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        assert key_directory(["--help"]) == 0
    said = " ".join(out.getvalue().split())
    assert "/.well-known/http-message-signatures-directory" in said
    assert "application/http-message-signatures-directory+json" in said
    assert "openssl genpkey -algorithm ed25519" in said


#: The draft's test vector "Signed Directory Response" (Appendix E.2.3): RFC 9421's key signs
#: the directory fetched from signature-agent.test, created 1735689600, expires 4889289600.
SIGNED_BODY = (
    b'{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U",'
    b'"x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","use":"sig"}]}'
)
SIGNED_HEADERS = {
    "Content-Digest": "sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:",
    "Signature-Input": 'binding=("@authority";req "content-digest");created=1735689600'
    ';expires=4889289600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"'
    ';tag="http-message-signatures-directory"',
    "Signature": "binding=:l6P8R67tm3kujAxbHWio7ll01qrEZ0dKD/WWlGhNYEmTnFZM8Wt0VQ9zqGfvo7T/UMkB"
    "xsigzChM1Gpz7gOVBg==:",
}


def test_the_signed_directory_response_is_the_drafts_test_vector() -> None:
    key = keys.private_key(RFC9421_PRIVATE, "rfc9421")
    body, headers = signed_directory([key], "signature-agent.test", 1735689600, 3153600000)
    assert (body, headers) == (SIGNED_BODY, SIGNED_HEADERS)


def test_the_directory_signed_for_its_authority_is_written_with_its_headers(
    tmp_path: Path,
) -> None:
    """One signature per key, each verifying over the digest of the body as written; a
    public key cannot sign, nor can a published test key; a bad authority is refused."""
    one, two = operator_key(tmp_path / "one.pem"), operator_key(tmp_path / "two.pem")
    out = io.StringIO()
    argv = [str(tmp_path / "one.pem"), str(tmp_path / "two.pem"), "--out", str(tmp_path / "d")]
    assert key_directory([*argv, "--signed-for", "Crawler.Example:8443"], out) == 0
    headers = dict(line.split(": ", 1) for line in out.getvalue().splitlines())
    body = (tmp_path / "d").read_bytes()
    digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
    assert headers["Content-Digest"] == f"sha-256=:{digest}:"
    assert len(directory_keys(json.loads(body))) == 2
    inputs, signatures = headers["Signature-Input"].split(", "), headers["Signature"].split(", ")
    labels = ("binding", "binding2")
    for label, key, given, signature in zip(labels, (one, two), inputs, signatures, strict=True):
        params = given.removeprefix(f"{label}=")
        base = (f'"@authority";req: crawler.example:8443\n"content-digest": sha-256=:{digest}:\n'
                f'"@signature-params": {params}')  # fmt: skip
        raw = base64.b64decode(signature.removeprefix(f"{label}=:").removesuffix(":"))
        key.public_key().verify(raw, base.encode())  # raises if it does not
    (tmp_path / "one.pub").write_bytes(
        one.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    )
    (tmp_path / "test.pem").write_bytes(RFC9421_PRIVATE)
    err = io.StringIO()
    with redirect_stderr(err):
        for bad in (["one.pub"], ["test.pem"], ["one.pem", "--signed-for", "https://x/"]):
            given = [str(tmp_path / bad[0]), *bad[1:]]
            if "--signed-for" not in given:
                given += ["--signed-for", "crawler.example"]
            assert key_directory([*given, "--out", str(tmp_path / "e")], io.StringIO()) == 2, bad
        key_bytes = (tmp_path / "one.pem").read_bytes()
        over = [str(tmp_path / "one.pem"), "--signed-for", "c.example", "--out"]
        assert key_directory([*over, str(tmp_path / "one.pem")], io.StringIO()) == 2
        assert (tmp_path / "one.pem").read_bytes() == key_bytes  # never written over
    said = err.getvalue().splitlines()
    assert "is a key file: name another file" in said[3]
    assert "a public key, not the private key" in said[0]
    assert "published: anyone can sign with it" in said[1]
    assert "--signed-for takes a host[:port]" in said[2]
