"""An operator's Ed25519 keys (RFC 8032): read from a file, named, published, used.

The one place keys are read, so that every signer and verifier of the project reads the
same forms the same way: the private key an operator gives (a PEM PKCS#8 file, as
``openssl genpkey -algorithm ed25519`` writes it, or a JWK holding ``d``: RFC 8037 §2),
its public key, the public keys a verifier is given (PEM, a JWK, or a JWK Set picked
from by key id), the RFC 7638 JWK thumbprint that names a key, the JWK Set (RFC 7517 §5)
an operator publishes, and signing and verifying bytes. Not tied to one use: requests
signed for Web Bot Auth (:mod:`scrapy_rep.crawl.webbotauth`) use it, as may anything
else that signs with the operator's key.

We never make or ship a key: the operator makes one (docs/keys.md). Pure: ``cryptography``
(the optional extra ``signing``; Scrapy installs it anyway) is imported by the functions
that need it, and its absence is a :class:`SigningKeyError` saying how to install it.
Every problem with a key, or a file that should hold one, is a :class:`SigningKeyError`
naming the file (or what was read) and what is wrong; nothing else is raised. A public
key of small order is none (anyone can sign for it: :func:`degenerate`). A witness's key
may be ML-DSA-44 too (FIPS 204; c2sp.org/tlog-cosignature v1.1.0), read, signed and
verified where the installed ``cryptography`` can (:func:`read_witness_key`,
:func:`verify_mldsa44`).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )
    from cryptography.hazmat.primitives.asymmetric.mldsa import MLDSA44PrivateKey

#: A key file is a few hundred bytes; a larger file is no key (a wrong path: a log, a
#: device), refused before it is read whole.
MAX_KEY_FILE_BYTES: Final = 64 * 1024
#: The length of an Ed25519 key, public or private, and of a signature (RFC 8032 §5.1.5-6).
KEY_BYTES: Final = 32
SIGNATURE_BYTES: Final = 64
#: The length of an ML-DSA-44 public key (FIPS 204, Table 2).
MLDSA44_KEY_BYTES: Final = 1312
INSTALL: Final = "pip install cryptography"
#: Ed25519 keys whose private half is published, by thumbprint: signatures made with one
#: prove nothing (draft-ietf-webbotauth-httpsig-protocol-01 §6.8: "MUST NOT be used in
#: production"); a crawl refuses them at start unless a setting names one for tests.
TEST_KEYS: Final = {
    "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U": "RFC 9421 Appendix B.1.4's test key",
    "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k": "RFC 8037 Appendix A.1's example key",
}


#: The field of Ed25519 (RFC 8032 §5.1: p = 2^255 - 19) and the y-coordinates of its eight
#: points of small order: the identity (1), order 2 (p - 1), order 4 (0) and order 8
#: (±Y8) (Chalkias, Garillot, Nikolaenko, "Taming the many EdDSAs", 2020, §3). A public
#: key at one of them verifies a signature that anyone can make.
_P: Final = 2**255 - 19
_Y8: Final = 2707385501144840649318225287225658788936804267575313519463743609750303402022
SMALL_ORDER_Y: Final = frozenset({0, 1, _P - 1, _Y8, _P - _Y8})


def degenerate(public: bytes) -> bool:
    """Whether anyone can sign for the public key ``public``: 32 bytes of an Ed25519 key
    that encode a point of small order (its y-coordinate, the encoding less its sign bit,
    taken mod p: an encoding of y at or above p is another form of the same point); the
    1,312 bytes of an ML-DSA-44 key whose t1 (all but its first 32 bytes, FIPS 204
    Algorithm 22) is zero, for which z = y signs any message (Algorithm 8 then checks
    w = Ay, whose high bits the signer knows)."""
    if len(public) == KEY_BYTES:
        return int.from_bytes(public, "little") % (1 << 255) % _P in SMALL_ORDER_Y
    return len(public) == MLDSA44_KEY_BYTES and not any(public[32:])


class SigningKeyError(ValueError):
    """A key that cannot be used: the file (or what was read) and what is wrong with it."""


def b64url(data: bytes) -> str:
    """base64url without padding (RFC 7515 §2, as JWKs and thumbprints write bytes)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_bytes(text: Any, source: str, member: str) -> bytes:
    """The bytes of a JWK member written in base64url (padding tolerated), which must be
    :data:`KEY_BYTES` long."""
    try:
        if not isinstance(text, str) or not text.isascii():
            raise ValueError
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError:
        raise SigningKeyError(f"{source}: its {member!r} is not base64url") from None
    if len(data) != KEY_BYTES:
        raise SigningKeyError(
            f"{source}: its {member!r} holds {len(data)} bytes, an Ed25519 key {KEY_BYTES}"
        )
    return data


def _require() -> None:
    """Nothing when ``cryptography``'s Ed25519 can be imported; else the error that says
    how to install it."""
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519  # noqa: F401
    except ImportError:
        raise SigningKeyError(
            f"Ed25519 keys need the cryptography package: {INSTALL} "
            "(the signing extra of the engine, rep-engine/)"
        ) from None


def read_key_file(path: str | Path) -> bytes:
    """The bytes of a key file; one that cannot be read, or too large to be a key, is a
    :class:`SigningKeyError` naming it."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_KEY_FILE_BYTES + 1)
    except OSError as error:
        raise SigningKeyError(f"{path}: cannot be read ({error.strerror or error})") from None
    if len(data) > MAX_KEY_FILE_BYTES:
        raise SigningKeyError(f"{path}: larger than {MAX_KEY_FILE_BYTES} bytes, no key file")
    if not data.strip():
        raise SigningKeyError(f"{path}: is empty")
    return data


def read_private_key(path: str | Path, allowed_test_key: str = "") -> Ed25519PrivateKey:
    """The Ed25519 private key in the file at ``path`` (PEM PKCS#8, or a JWK with ``d``);
    one of :data:`TEST_KEYS` only when ``allowed_test_key`` is its thumbprint."""
    key = private_key(read_key_file(path), str(path))
    kid = thumbprint(key.public_key())
    if kid in TEST_KEYS and kid != allowed_test_key:
        raise SigningKeyError(
            f"{path}: {TEST_KEYS[kid]}, published: anyone can sign with it; make a key of "
            f"your own (for a test, set REP_ALLOW_TEST_KEY = {kid!r})"
        )
    return key


def read_public_key(path: str | Path, kid: str | None = None) -> Ed25519PublicKey:
    """The Ed25519 public key in the file at ``path``: see :func:`public_key`."""
    return public_key(read_key_file(path), str(path), kid)


def private_key(data: bytes, source: str) -> Ed25519PrivateKey:
    """The Ed25519 private key ``data`` holds: PEM ``PRIVATE KEY`` (PKCS#8, RFC 8410 §7),
    or a JWK ``{"kty": "OKP", "crv": "Ed25519", "d": …}`` (RFC 8037 §2), whose ``x``, if
    given, must be its public key. ``source`` names it in errors."""
    _require()
    from cryptography.hazmat.primitives.asymmetric import ed25519

    text = data.lstrip()
    if text.startswith(b"{"):
        jwk = _jwk(_json(data, source), source)
        if "d" not in jwk:
            raise SigningKeyError(f"{source}: a public JWK (no 'd'), not the private key")
        made = ed25519.Ed25519PrivateKey.from_private_bytes(b64url_bytes(jwk["d"], source, "d"))
        if "x" in jwk and b64url_bytes(jwk["x"], source, "x") != raw_public(made.public_key()):
            raise SigningKeyError(f"{source}: its 'x' is not the public key of its 'd'")
        return made
    if text.startswith(b"-----BEGIN PUBLIC KEY-----"):
        raise SigningKeyError(f"{source}: a public key, not the private key")
    if not text.startswith(b"-----BEGIN "):
        raise SigningKeyError(f"{source}: {_NOT_A_KEY}")
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        key = load_pem_private_key(data, password=None)
    except TypeError:  # cryptography: "Password was not given but private key is encrypted"
        raise SigningKeyError(
            f"{source}: the key is encrypted; give it unencrypted "
            "(openssl pkey -in KEY -out PLAIN), readable by the crawl alone"
        ) from None
    except (ValueError, UnsupportedAlgorithm) as error:
        raise SigningKeyError(f"{source}: {_NOT_A_KEY} ({_first(error)})") from None
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise SigningKeyError(f"{source}: holds {_kind(key)} key, not an Ed25519 one")
    return key


def public_key(data: bytes, source: str, kid: str | None = None) -> Ed25519PublicKey:
    """The Ed25519 public key ``data`` holds: PEM ``PUBLIC KEY`` or DER (RFC 8410 §4), an
    OpenSSH ``ssh-ed25519`` line, its 32 raw bytes (RFC 8032 §5.1.5), a private key
    (:func:`private_key`: its public half), a JWK (RFC 8037 §2), or a JWK Set (RFC 7517
    §5) and ``kid``, the key id of one of its keys: its ``kid`` member or its thumbprint
    (a set of one key needs none)."""
    _require()
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    text = data.strip()
    if len(data) == KEY_BYTES:
        return _public(data, source)
    if text.startswith(b"{"):
        document = _json(data, source)
        if isinstance(document.get("keys"), list):
            return _from_set(document["keys"], source, kid)
        if "x" not in _jwk(document, source):
            return private_key(data, source).public_key()
        return _public(b64url_bytes(document["x"], source, "x"), source)
    if text.startswith(b"-----BEGIN ") and not text.startswith(b"-----BEGIN PUBLIC KEY-----"):
        return private_key(data, source).public_key()
    load, given = serialization.load_der_public_key, data
    if text.startswith(b"-----BEGIN PUBLIC KEY-----"):
        load = serialization.load_pem_public_key
    elif text.startswith(b"ssh-"):
        load, given = serialization.load_ssh_public_key, text
    try:
        key = load(given)
    except (ValueError, UnsupportedAlgorithm) as error:
        raise SigningKeyError(f"{source}: {_NOT_A_PUBLIC_KEY} ({_first(error)})") from None
    if not isinstance(key, ed25519.Ed25519PublicKey):
        raise SigningKeyError(f"{source}: holds {_kind(key)} key, not an Ed25519 one")
    return _public(raw_public(key), source)


def public_keys(data: bytes, source: str) -> list[Ed25519PublicKey]:
    """Every Ed25519 public key ``data`` holds: each of a JWK Set's (RFC 7517 §5), or
    the one :func:`public_key` reads."""
    text = data.strip()
    document = _json(data, source) if text.startswith(b"{") else {}
    members = document.get("keys")
    if not isinstance(members, list):
        return [public_key(data, source)]
    return [
        _public(b64url_bytes(m.get("x"), f"{source} (key {index})", "x"), source)
        for index, m in enumerate(members)
        if isinstance(m, dict) and (m.get("kty"), m.get("crv")) == ("OKP", "Ed25519")
    ]


def _public(raw: bytes, source: str) -> Ed25519PublicKey:
    """The Ed25519 public key of the 32 bytes ``raw``, unless it is :func:`degenerate`."""
    _require()
    from cryptography.hazmat.primitives.asymmetric import ed25519

    if degenerate(raw):
        raise SigningKeyError(f"{source}: an Ed25519 key of small order, for which anyone "
                              "can make a signature that verifies: not a key")  # fmt: skip
    return ed25519.Ed25519PublicKey.from_public_bytes(raw)


def holds_private_key(data: bytes) -> bool:
    """Whether a key file :func:`public_key` reads holds a private key, where a verifier
    needs only the public one: PEM other than ``PUBLIC KEY`` (PKCS#8, OpenSSH), or a JWK,
    or a member of a JWK Set, with ``d`` (RFC 8037 §2: the private key)."""
    text = data.strip()
    if text.startswith(b"-----BEGIN "):
        return not text.startswith(b"-----BEGIN PUBLIC KEY-----")
    try:
        document = json.loads(data) if text.startswith(b"{") else {}
    except (ValueError, RecursionError):
        return False
    members = document.get("keys", [document]) if isinstance(document, dict) else []
    return isinstance(members, list) and any(isinstance(m, dict) and "d" in m for m in members)


def _from_set(keys: list[Any], source: str, kid: str | None) -> Ed25519PublicKey:
    """The key of a JWK Set named by ``kid`` (its ``kid`` member, or its thumbprint);
    without ``kid``, its one Ed25519 key. Members that are no Ed25519 key are passed over,
    as RFC 7517 §5 says a reader ignores keys it cannot use."""
    found = []
    for index, member in enumerate(keys):
        if not (isinstance(member, dict) and member.get("kty") == "OKP"):
            continue
        if member.get("crv") != "Ed25519":
            continue
        key = _public(b64url_bytes(member.get("x"), f"{source} (key {index})", "x"), source)
        if kid is None or kid in (member.get("kid"), thumbprint(key)):
            found.append(key)
    if len(found) == 1:
        return found[0]
    if kid is not None:
        what = "no Ed25519 key" if not found else f"{len(found)} Ed25519 keys"
        raise SigningKeyError(f"{source}: {what} with key id {kid!r}")
    what = "no Ed25519 key" if not found else f"{len(found)} Ed25519 keys: name one by its kid"
    raise SigningKeyError(f"{source}: a JWK Set with {what}")


_NOT_A_KEY: Final = (
    "no Ed25519 private key (expected PEM 'BEGIN PRIVATE KEY', PKCS#8, or a JWK with 'd')"
)
_NOT_A_PUBLIC_KEY: Final = (
    "no Ed25519 public key (expected PEM 'BEGIN PUBLIC KEY', an OpenSSH 'ssh-ed25519' "
    "line, DER, its 32 raw bytes, a JWK or a JWK Set)"
)


def _first(error: Exception) -> str:
    return str(error).splitlines()[0][:120] if str(error) else type(error).__name__


def _kind(key: Any) -> str:
    """What a key of another type is, for an error: ``an RSA`` (``RSAPrivateKey``)…"""
    name = type(key).__name__.removeprefix("_")
    for word in ("PrivateKey", "PublicKey"):
        name = name.replace(word, "")
    return f"an {name}" if name[:1] in "AEIOURX" else f"a {name}"  # an RSA, an X25519


def _json(data: bytes, source: str) -> dict[str, Any]:
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as error:
        raise SigningKeyError(f"{source}: not JSON ({error})") from None
    if not isinstance(document, dict):
        raise SigningKeyError(f"{source}: not a JWK (a JSON object)")
    return document


def _jwk(document: dict[str, Any], source: str) -> dict[str, Any]:
    """``document`` if it is an Ed25519 JWK (RFC 8037 §2: ``kty`` OKP, ``crv`` Ed25519)."""
    if document.get("kty") != "OKP" or document.get("crv") != "Ed25519":
        kty, crv = document.get("kty"), document.get("crv")
        raise SigningKeyError(
            f"{source}: a JWK of kty {kty!r} and crv {crv!r}, not an Ed25519 key "
            "(kty 'OKP', crv 'Ed25519')"
        )
    return document


def raw_public(key: Ed25519PublicKey) -> bytes:
    """The 32 bytes of a public key (RFC 8032 §5.1.5), as a JWK's ``x`` holds them."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def thumbprint(key: Ed25519PublicKey) -> str:
    """The key's RFC 7638 JWK thumbprint (§3): base64url of the SHA-256 of its required
    members, ``crv``, ``kty`` and ``x`` for an OKP key (RFC 8037 Appendix A.3), in that
    order, with no whitespace."""
    members = f'{{"crv":"Ed25519","kty":"OKP","x":"{b64url(raw_public(key))}"}}'
    return b64url(hashlib.sha256(members.encode("ascii")).digest())


def jwk(key: Ed25519PublicKey) -> dict[str, str]:
    """The public JWK of ``key`` for a key directory: its ``kid`` is its thumbprint, as
    draft-ietf-webbotauth-httpsig-protocol-01 ("Key Distribution and Discovery") requires
    of a directory at the well-known URI, and ``use`` is ``sig`` (RFC 7517 §4.2)."""
    x = b64url(raw_public(key))
    return {"kty": "OKP", "crv": "Ed25519", "kid": thumbprint(key), "x": x, "use": "sig"}


def jwks(keys: Iterable[Ed25519PublicKey]) -> dict[str, list[dict[str, str]]]:
    """The JWK Set (RFC 7517 §5) of ``keys``, each once, in order."""
    members = {thumbprint(key): jwk(key) for key in keys}
    return {"keys": list(members.values())}


def sign(key: Ed25519PrivateKey, data: bytes) -> bytes:
    """The Ed25519 signature of ``data`` (RFC 8032 §5.1.6): 64 bytes."""
    return key.sign(data)


def verify(key: Ed25519PublicKey, signature: bytes, data: bytes) -> bool:
    """Whether ``signature`` is ``key``'s over ``data`` (RFC 8032 §5.1.7)."""
    from cryptography.exceptions import InvalidSignature

    if len(signature) != SIGNATURE_BYTES:
        return False
    try:
        key.verify(signature, data)
    except InvalidSignature:
        return False
    return True


def read_witness_key(path: str | Path) -> Ed25519PrivateKey | MLDSA44PrivateKey:
    """A witness's private key in the file at ``path``: an ML-DSA-44 key (PEM PKCS#8, RFC
    9881; c2sp.org/tlog-witness: witnesses SHOULD use ML-DSA-44 cosignatures), or an
    Ed25519 key as :func:`read_private_key` reads one."""
    data = read_key_file(path)
    try:
        from cryptography.hazmat.primitives.asymmetric.mldsa import MLDSA44PrivateKey
    except ImportError:  # a cryptography without ML-DSA reads Ed25519 keys alone
        return read_private_key(path)
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        key = load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        key = None  # read_private_key says what is wrong with it
    if isinstance(key, MLDSA44PrivateKey):
        return key
    return read_private_key(path)


def read_witness_public(path: str | Path) -> bytes:
    """The raw public key of a witness's key file: an ML-DSA-44 key, private or public
    (PEM), or an Ed25519 key as :func:`read_public_key` reads one."""
    data = read_key_file(path)
    try:
        from cryptography.hazmat.primitives.asymmetric import mldsa
    except ImportError:
        return raw_public(read_public_key(path))
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization

    key: Any
    try:
        key = serialization.load_pem_private_key(data, password=None).public_key()
    except (ValueError, TypeError, UnsupportedAlgorithm):
        try:
            key = serialization.load_pem_public_key(data)
        except (ValueError, UnsupportedAlgorithm):
            key = None
    if isinstance(key, mldsa.MLDSA44PublicKey):
        return bytes(key.public_bytes_raw())
    return raw_public(read_public_key(path))


def verify_mldsa44(public: bytes, signature: bytes, data: bytes) -> bool | None:
    """Whether ``signature`` is the ML-DSA-44 key ``public``'s over ``data`` (FIPS 204,
    its empty context); ``None`` where the installed ``cryptography`` cannot tell (too old,
    or its OpenSSL without ML-DSA)."""
    try:
        from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
        from cryptography.hazmat.primitives.asymmetric.mldsa import MLDSA44PublicKey
    except ImportError:
        return None
    try:
        MLDSA44PublicKey.from_public_bytes(public).verify(signature, data)
    except InvalidSignature:
        return False
    except UnsupportedAlgorithm:
        return None
    except ValueError:  # not a key of 1,312 bytes
        return False
    return True
