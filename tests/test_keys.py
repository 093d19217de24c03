"""rep_engine/keys.py: an operator's Ed25519 keys, against the published vectors (RFC 8037
Appendix A, RFC 9421 Appendix B.1.4, draft-ietf-webbotauth-httpsig-protocol-01's Ed25519
test vector) and every form a key file may come in; a file that holds no usable key is an
error naming it and what is wrong, never another exception."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from rep_engine import keys
from rep_engine.keys import SigningKeyError
from tests.support.signatures import RFC9421_PRIVATE, operator_key, recomputed_thumbprint

#: RFC 8037 Appendix A.1's key and A.3's thumbprint of it.
RFC8037_JWK = {
    "kty": "OKP",
    "crv": "Ed25519",
    "d": "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A",
    "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
}
RFC8037_THUMBPRINT = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
RFC9421_PUBLIC = b"""-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=
-----END PUBLIC KEY-----
"""
#: The draft's test vector "EdDSA Using Curve edwards25519", "Signature-Agent Included
#: Present on the Request": its signature base and signature (Ed25519 is deterministic).
DRAFT_BASE = (
    '"@authority": example.com\n'
    '"signature-agent";key="agent2": "https://signature-agent.test"\n'
    '"@signature-params": ("@authority" "signature-agent";key="agent2");created=1735689600'
    ';keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=4889289600'
    ';nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1'
    'YsauiA==";tag="web-bot-auth"'
)
DRAFT_SIGNATURE = (
    "RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg=="
)


def test_rfc8037_a3_thumbprint_of_a_jwk() -> None:
    key = keys.private_key(json.dumps(RFC8037_JWK).encode(), "jwk")
    assert keys.thumbprint(key.public_key()) == RFC8037_THUMBPRINT
    assert keys.b64url(keys.raw_public(key.public_key())) == RFC8037_JWK["x"]


def test_the_drafts_ed25519_vector_signed_and_verified() -> None:
    """The RFC 9421 key signs the draft's signature base into the draft's signature, its
    key id is the draft's, and the signature verifies (one byte changed, it does not)."""
    key = keys.private_key(RFC9421_PRIVATE, "rfc9421")
    public = keys.public_key(RFC9421_PUBLIC, "rfc9421.pub")
    assert keys.raw_public(key.public_key()) == keys.raw_public(public)
    assert keys.thumbprint(public) == "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"
    signature = keys.sign(key, DRAFT_BASE.encode())
    assert base64.b64encode(signature).decode() == DRAFT_SIGNATURE
    assert keys.verify(public, signature, DRAFT_BASE.encode())
    assert not keys.verify(public, signature, DRAFT_BASE.replace("example", "exbmple").encode())
    assert not keys.verify(public, signature[:-1], DRAFT_BASE.encode())


def test_a_directory_entry_is_the_drafts_shape_with_the_thumbprint_as_kid() -> None:
    public = keys.public_key(RFC9421_PUBLIC, "rfc9421.pub")
    assert keys.jwks([public, public]) == {  # each key once
        "keys": [
            {
                "kty": "OKP",
                "crv": "Ed25519",
                "kid": "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U",
                "x": "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs",
                "use": "sig",
            }
        ]
    }


def test_every_form_of_a_key_file_reads_as_the_same_key(tmp_path: Path) -> None:
    """PEM PKCS#8 (as openssl writes it), a JWK with ``d`` (and ``x``, or not), a public
    PEM, a public JWK, a JWK Set by kid or by thumbprint: one key, one thumbprint, which a
    computation of RFC 7638 of our own agrees with."""
    key = operator_key(tmp_path / "key.pem")
    raw = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    x = keys.b64url(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))
    expected = recomputed_thumbprint(x)
    private_jwk = {"kty": "OKP", "crv": "Ed25519", "d": keys.b64url(raw)}
    files = {
        "private.jwk": json.dumps(private_jwk),
        "both.jwk": json.dumps({**private_jwk, "x": x}),
        "public.pem": key.public_key()
        .public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
        .decode(),
        "public.jwk": json.dumps({"kty": "OKP", "crv": "Ed25519", "x": x}),
        "set.jwks": json.dumps({"keys": [{"kty": "RSA", "n": "AQAB"}, keys.jwk(key.public_key())]}),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert keys.thumbprint(keys.read_private_key(tmp_path / "key.pem").public_key()) == expected
    for name in ("private.jwk", "both.jwk"):
        assert keys.thumbprint(keys.read_private_key(tmp_path / name).public_key()) == expected
    for name in ("key.pem", *files):
        assert keys.thumbprint(keys.read_public_key(tmp_path / name)) == expected, name
    assert keys.thumbprint(keys.read_public_key(tmp_path / "set.jwks", expected)) == expected


def test_a_jwk_set_is_picked_from_by_kid(tmp_path: Path) -> None:
    one, two = (keys.public_key(operator_key(tmp_path / n).public_key().public_bytes(
        Encoding.PEM, PublicFormat.SubjectPublicKeyInfo), n) for n in ("1", "2"))  # fmt: skip
    labelled = {**keys.jwk(two), "kid": "old-key"}  # a kid that is not the thumbprint
    directory = json.dumps({"keys": [keys.jwk(one), labelled]}).encode()
    assert keys.thumbprint(keys.public_key(directory, "d", keys.thumbprint(one))) == (
        keys.thumbprint(one)
    )
    for kid in ("old-key", keys.thumbprint(two)):  # its kid member, or its thumbprint
        assert keys.thumbprint(keys.public_key(directory, "d", kid)) == keys.thumbprint(two)
    with pytest.raises(SigningKeyError, match=r"^d: a JWK Set with 2 Ed25519 keys: name one"):
        keys.public_key(directory, "d")
    with pytest.raises(SigningKeyError, match=r"^d: no Ed25519 key with key id 'nope'$"):
        keys.public_key(directory, "d", "nope")


def test_a_file_without_a_usable_private_key_is_an_error_naming_it(tmp_path: Path) -> None:
    key = operator_key(tmp_path / "key.pem")
    other = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    x = keys.b64url(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))
    raw = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    cases = {
        "missing.pem": (None, "cannot be read (No such file or directory)"),
        "empty.pem": (b"\n", "is empty"),
        "large.pem": (b"x" * (keys.MAX_KEY_FILE_BYTES + 1), "larger than 65536 bytes"),
        "text.pem": (b"hello", "no Ed25519 private key (expected PEM"),
        "rsa.pem": (
            other.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()),
            "holds an RSA key, not an Ed25519 one",
        ),
        "encrypted.pem": (
            key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(b"pw")),
            "the key is encrypted",
        ),
        "cut.pem": ((tmp_path / "key.pem").read_bytes()[:60], "no Ed25519 private key"),
        "public.pem": (
            key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo),
            "a public key, not the private key",
        ),
        "public.jwk": (
            json.dumps({"kty": "OKP", "crv": "Ed25519", "x": x}).encode(),
            "a public JWK (no 'd'), not the private key",
        ),
        "ec.jwk": (json.dumps({"kty": "EC", "crv": "P-256"}).encode(), "a JWK of kty 'EC'"),
        "short.jwk": (
            json.dumps({"kty": "OKP", "crv": "Ed25519", "d": "AAAA"}).encode(),
            "its 'd' holds 3 bytes, an Ed25519 key 32",
        ),
        "notb64.jwk": (
            json.dumps({"kty": "OKP", "crv": "Ed25519", "d": "é" * 43}).encode(),
            "its 'd' is not base64url",
        ),
        "mismatch.jwk": (
            json.dumps({**jwk_of(raw), "x": keys.b64url(bytes(32))}).encode(),
            "its 'x' is not the public key of its 'd'",
        ),
        "list.jwk": (b"[1, 2]", "no Ed25519 private key"),
        "broken.jwk": (b"{", "not JSON"),
    }
    for name, (data, said) in cases.items():
        path = tmp_path / name
        if data is not None:
            path.write_bytes(data)
        with pytest.raises(SigningKeyError) as error:
            keys.read_private_key(path)
        assert str(error.value).startswith(f"{path}: "), (name, error.value)
        assert said in str(error.value), (name, error.value)


def jwk_of(raw: bytes) -> dict[str, str]:
    """The private JWK of the Ed25519 key whose private bytes are ``raw``."""
    return {"kty": "OKP", "crv": "Ed25519", "d": keys.b64url(raw)}


def test_without_cryptography_the_error_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.asymmetric", None)
    with pytest.raises(SigningKeyError, match=r"need the cryptography package: pip install cr"):
        keys.private_key(RFC9421_PRIVATE, "k")


def test_a_public_key_in_each_common_form_is_read_or_refused_as_a_public_key(
    tmp_path: Path,
) -> None:
    """OpenSSH's ``ssh-ed25519`` line, DER and the 32 raw bytes read as the key; anything
    else a public key is asked for is refused with a message about public keys, never
    one asking for the private key."""
    key = operator_key(tmp_path / "key.pem").public_key()
    forms = {
        "id.pub": key.public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH) + b" crawler\n",
        "key.der": key.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo),
        "key.raw": key.public_bytes(Encoding.Raw, PublicFormat.Raw),
    }
    for name, data in forms.items():
        (tmp_path / name).write_bytes(data)
        assert keys.thumbprint(keys.read_public_key(tmp_path / name)) == keys.thumbprint(key)
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=1024).public_key()
    refused = {
        "text.pub": (b"hello", "no Ed25519 public key (expected PEM 'BEGIN PUBLIC KEY', an Op"),
        "rsa.pub": (rsa_key.public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH),
                    "holds an RSA key, not an Ed25519 one"),
        "short.raw": (bytes(31), "no Ed25519 public key"),
    }  # fmt: skip
    for name, (data, said) in refused.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(SigningKeyError) as error:
            keys.read_public_key(tmp_path / name)
        assert str(error.value).startswith(f"{tmp_path / name}: {said}"), error.value
        assert "private" not in str(error.value), error.value


def test_a_published_test_key_is_refused_unless_named(tmp_path: Path) -> None:
    """RFC 9421's and RFC 8037's keys are published: a key read to sign with is refused
    (draft-ietf-webbotauth-httpsig-protocol-01 §6.8), unless its key id is allowed."""
    (tmp_path / "rfc9421.pem").write_bytes(RFC9421_PRIVATE)
    (tmp_path / "rfc8037.jwk").write_text(json.dumps(RFC8037_JWK))
    for name, kid in (("rfc9421.pem", "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"),
                      ("rfc8037.jwk", RFC8037_THUMBPRINT)):  # fmt: skip
        with pytest.raises(SigningKeyError, match="published: anyone can sign with it"):
            keys.read_private_key(tmp_path / name)
        assert keys.thumbprint(keys.read_private_key(tmp_path / name, kid).public_key()) == kid
    operator_key(tmp_path / "own.pem")
    keys.read_private_key(tmp_path / "own.pem")  # a key of one's own: read


#: The eight Ed25519 points of small order, each as the 32 bytes that encode it (its y,
#: little-endian, the sign of x in the top bit): the identity, order 2, the two of order
#: 4 (y = 0, x = ±sqrt(-1)) and the four of order 8 (y = ±Y8) — and non-canonical
#: encodings of some (y + p, the sign bit of x = 0 set).
_P = 2**255 - 19
_Y8 = 2707385501144840649318225287225658788936804267575313519463743609750303402022
SMALL_ORDER = [
    *(y.to_bytes(32, "little") for y in (1, _P - 1, 0, _Y8, _P - _Y8)),
    (0 | 1 << 255).to_bytes(32, "little"),
    (_Y8 | 1 << 255).to_bytes(32, "little"),
    ((_P - _Y8) | 1 << 255).to_bytes(32, "little"),
    (_P + 1).to_bytes(32, "little"),  # y = 1 written as p + 1
    (1 | 1 << 255).to_bytes(32, "little"),  # the identity with the sign bit set
]


@pytest.mark.parametrize("public", SMALL_ORDER, ids=lambda b: b.hex()[:8] + "-" + b.hex()[-4:])
def test_a_point_of_small_order_is_no_key(public: bytes, tmp_path: Path) -> None:
    """A public key of small order verifies a signature anyone makes (with the identity,
    R = the identity and S = 0 verify over any message): refused in every form, raw, as a
    JWK and in a JWK Set."""
    assert keys.degenerate(public)
    jwk = {"kty": "OKP", "crv": "Ed25519", "x": keys.b64url(public)}
    for data in (public, json.dumps(jwk).encode(), json.dumps({"keys": [jwk]}).encode()):
        with pytest.raises(SigningKeyError, match="of small order"):
            keys.public_key(data, "given")
    assert not keys.degenerate(operator_key(tmp_path / "k.pem").public_key().public_bytes_raw())


def test_every_key_of_a_set_is_read(tmp_path: Path) -> None:
    """``public_keys``: each Ed25519 key of a JWK Set (the operator's whole set: none of
    them a witness), or the one of a PEM file; members of other kinds passed over."""
    one, two = operator_key(tmp_path / "1.pem"), operator_key(tmp_path / "2.pem")
    document = keys.jwks([one.public_key(), two.public_key()])
    document["keys"].append({"kty": "RSA", "n": "AQAB", "e": "AQAB"})
    found = keys.public_keys(json.dumps(document).encode(), "set")
    assert [keys.raw_public(k) for k in found] == [one.public_key().public_bytes_raw(),
                                                   two.public_key().public_bytes_raw()]  # fmt: skip
    pem = one.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    assert [keys.raw_public(k) for k in keys.public_keys(pem, "pem")] == [
        one.public_key().public_bytes_raw()
    ]


def test_a_witnesss_ml_dsa_44_key_is_read_signs_and_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ML-DSA-44 private key (PEM PKCS#8) is a witness's key, its public half 1,312
    bytes, from the private file or the public one; an Ed25519 one is read as before;
    ML-DSA-44 verified where cryptography can, ``None`` where it cannot; a key whose t1
    is zero (z = y signs anything) is degenerate."""
    from cryptography.hazmat.primitives.asymmetric.mldsa import MLDSA44PrivateKey

    key = MLDSA44PrivateKey.generate()
    (tmp_path / "pq.pem").write_bytes(
        key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    )
    (tmp_path / "pq.pub").write_bytes(
        key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    )
    read = keys.read_witness_key(tmp_path / "pq.pem")
    public = key.public_key().public_bytes_raw()
    assert isinstance(read, MLDSA44PrivateKey) and read.public_key().public_bytes_raw() == public
    assert keys.read_witness_public(tmp_path / "pq.pem") == public
    assert keys.read_witness_public(tmp_path / "pq.pub") == public
    ed = operator_key(tmp_path / "ed.pem")
    assert keys.read_witness_public(tmp_path / "ed.pem") == ed.public_key().public_bytes_raw()
    signature = read.sign(b"message")
    assert keys.verify_mldsa44(public, signature, b"message") is True
    assert keys.verify_mldsa44(public, signature, b"another") is False
    assert keys.degenerate(public[:32] + bytes(1280)) and not keys.degenerate(public)
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.asymmetric.mldsa", None)
    assert keys.verify_mldsa44(public, signature, b"message") is None
    with pytest.raises(SigningKeyError):  # read as an Ed25519 key: it is none
        keys.read_witness_key(tmp_path / "pq.pem")
