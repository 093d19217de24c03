"""Checking Web Bot Auth signatures as a site would, with nothing of the signer's code: the
signature by pyauth's ``http-message-signatures`` (an RFC 9421 verifier of its own, §3.2),
the key directory read and its key ids recomputed here from RFC 7638 and RFC 8037 with
``hashlib`` and ``cryptography`` alone. And the operator's key the tests sign with, made
anew for each test (the project never makes or ships a key: docs/keys.md)."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
)

#: The ``Signature-Agent`` URL the tests' crawls send.
AGENT = "https://crawler.example/.well-known/http-message-signatures-directory"
#: RFC 9421 Appendix B.1.4's test-key-ed25519, which the draft's Ed25519 vectors use
#: (published: a crawl refuses it unless ``REP_ALLOW_TEST_KEY`` names it), and its id.
RFC9421_PRIVATE = b"""-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF
-----END PRIVATE KEY-----
"""
RFC9421_KID = "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"


def operator_key(path: Path) -> Ed25519PrivateKey:
    """A new Ed25519 private key, written to ``path`` as ``openssl genpkey -algorithm
    ed25519`` writes one (PEM, PKCS#8)."""
    key = Ed25519PrivateKey.generate()
    path.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    return key


def public_key_file(private: Path) -> Path:
    """The public half of the key file ``private`` (:func:`operator_key`), written beside it
    as ``openssl pkey -pubout`` writes it: what an operator publishes and a site checks
    with (a private key given to ``check-bundle --key`` proves nothing)."""
    key = load_pem_private_key(private.read_bytes(), password=None)
    public = private.with_suffix(".pub")
    public.write_bytes(
        key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    )
    return public


def signing(path: Path, lifetime: int = 86_400, http: bool = True) -> dict[str, Any]:
    """The settings of a crawl that signs with the key at ``path`` (a day's lifetime: the
    verifier checks a signature after the crawl, never against a clock it races), its
    ``http://`` requests too (the tests' local sites are http) unless ``http`` is false."""
    return {
        "REP_WEB_BOT_AUTH_KEY": str(path),
        "REP_WEB_BOT_AUTH_AGENT": AGENT,
        "REP_WEB_BOT_AUTH_LIFETIME": lifetime,
        "REP_WEB_BOT_AUTH_HTTP": http,
    }


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def recomputed_thumbprint(x: str) -> str:
    """RFC 7638 §3.1 for an OKP key (RFC 8037 Appendix A.3): the SHA-256 of the JSON of
    its required members, sorted, without whitespace, in base64url without padding."""
    members = json.dumps({"kty": "OKP", "crv": "Ed25519", "x": x}, sort_keys=True,
                         separators=(",", ":"))  # fmt: skip
    digest = hashlib.sha256(members.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def directory_keys(directory: dict[str, Any]) -> dict[str, Ed25519PublicKey]:
    """The keys of a key directory (a JWK Set) by key id, each checked as the draft says a
    directory at the well-known URI must be: an Ed25519 JWK whose ``kid`` is its
    thumbprint."""
    found = {}
    for jwk in directory["keys"]:
        assert jwk["kty"] == "OKP" and jwk["crv"] == "Ed25519" and jwk["use"] == "sig", jwk
        assert "d" not in jwk, "a private key in the directory"
        assert jwk["kid"] == recomputed_thumbprint(jwk["x"]), jwk
        found[jwk["kid"]] = Ed25519PublicKey.from_public_bytes(b64url_decode(jwk["x"]))
    return found


def verified(
    method: str, target: str, headers: list[tuple[str, str]], keys: dict[str, Ed25519PublicKey]
) -> dict[str, Any]:
    """The Web Bot Auth signature of a request as a site received it (``target``: its
    request target; ``headers``: its header lines), verified by pyauth's RFC 9421 verifier
    with ``keys`` (by key id) and the draft's requirements: tag ``web-bot-auth``, the
    ``@authority`` and the label's ``Signature-Agent`` member covered, ``created`` and
    ``expires`` given. Returns the verified parameters and components; raises
    ``InvalidSignature`` otherwise."""
    from http_message_signatures import HTTPMessageVerifier, algorithms
    from http_message_signatures.resolvers import MappingKeyResolver

    fields: dict[str, str] = {}
    for name, value in headers:  # repeated lines joined, as RFC 9110 §5.3 combines them
        key = name.lower()
        fields[key] = f"{fields[key]}, {value}" if key in fields else value
    message = SimpleNamespace(method=method, url=f"http://{fields['host']}{target}",
                              headers=fields)  # fmt: skip
    verifier = HTTPMessageVerifier(
        signature_algorithm=algorithms.ED25519,
        key_resolver=MappingKeyResolver(public_keys=keys, private_keys={}),
    )
    [result] = verifier.verify(
        message,
        expect_tag="web-bot-auth",
        require_components=("@authority", '"signature-agent";key="sig1"'),
    )
    assert {"created", "expires", "keyid"} <= set(result.parameters), result.parameters
    return {"parameters": result.parameters, "components": dict(result.covered_components)}
