"""``python -m scrapy_rep key-directory KEY_FILE…``: the key directory an operator publishes
for Web Bot Auth (draft-ietf-webbotauth-httpsig-protocol-01, "Key Distribution and
Discovery", "Directory Format"; docs/keys.md).

Prints the JWK Set (RFC 7517 §5) of the public keys of the files given, each an Ed25519 key
as :mod:`rep_engine.keys` reads it (the private key the crawl signs with, or a public key:
the old one kept while a new one takes over), each key once with its thumbprint as ``kid``.
The operator serves it at ``/.well-known/http-message-signatures-directory`` of the URL
``REP_WEB_BOT_AUTH_AGENT`` names, over HTTPS, as
``application/http-message-signatures-directory+json``. With ``--signed-for AUTHORITY``
(the private keys given), the directory is written to ``--out`` exactly as its response
signatures are over, and the response's headers printed: its ``Content-Digest`` (RFC
9530) and one HTTP Message Signature per key (the draft's Appendix B.1, "Possession Proof
on the Directory Response"). Pure: no Scrapy, no network; the private key never leaves
the file.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

from rep_engine import keys
from rep_engine.commandline import EXIT_USAGE, Door, Tool

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

#: What the command does, as its ``--help`` and ``python -m scrapy_rep --help`` say it.
SUMMARY: Final = "print the key directory (JWKS) to publish for signed requests"
#: Where the directory is published, and as what (the draft's well-known URI and media type).
WELL_KNOWN: Final = "/.well-known/http-message-signatures-directory"
MEDIA_TYPE: Final = "application/http-message-signatures-directory+json"
#: A directory response signature's covered components and tag (Appendix B.1).
COVERED: Final = '("@authority";req "content-digest")'
TAG: Final = "http-message-signatures-directory"


def signed_directory(
    private: list[Ed25519PrivateKey], authority: str, created: int, lifetime: int
) -> tuple[bytes, dict[str, str]]:
    """The directory of ``private``'s public keys as served (compact JSON), and the
    headers of its response to a request of ``authority`` (Appendix B.1: ``@authority``
    with ``req``, ``Content-Digest``; ``created``, ``expires``, ``keyid``, the tag), one
    signature a key, labelled ``binding``, ``binding2``…"""
    body = json.dumps(keys.jwks(key.public_key() for key in private), separators=(",", ":"))
    digest = f"sha-256=:{base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()}:"
    inputs, signatures = [], []
    for number, key in enumerate(private, 1):
        label = f"binding{number}" if number > 1 else "binding"
        params = (f'{COVERED};created={created};expires={created + lifetime}'
                  f';keyid="{keys.thumbprint(key.public_key())}";tag="{TAG}"')  # fmt: skip
        base = (f'"@authority";req: {authority}\n"content-digest": {digest}\n'
                f'"@signature-params": {params}')  # fmt: skip
        inputs.append(f"{label}={params}")
        signatures.append(f"{label}=:{base64.b64encode(keys.sign(key, base.encode())).decode()}:")
    headers = {"Content-Digest": digest, "Signature-Input": ", ".join(inputs),
               "Signature": ", ".join(signatures)}  # fmt: skip
    return body.encode(), headers


#: The ``key-directory`` tool (:class:`rep_engine.commandline.Tool`; ``python -m scrapy_rep
#: key-directory``).
TOOL: Final = Tool(
    name="key-directory",
    synopsis="KEY_FILE...",
    summary=SUMMARY,
    about=f"{SUMMARY[0].upper()}{SUMMARY[1:]}: the public keys of the Ed25519 key files given "
    "(the private key REP_WEB_BOT_AUTH_KEY names, or public keys), as a JSON Web Key Set, each "
    f"key's kid its RFC 7638 thumbprint (the keyid of its signatures). Publish it over HTTPS at "
    f"{WELL_KNOWN} of your site, as {MEDIA_TYPE}, and set REP_WEB_BOT_AUTH_AGENT to its URL. "
    "Make a key with: openssl genpkey -algorithm ed25519 -out key.pem (docs/keys.md).",
    exits={0: "the directory printed (with --signed-for: written to --out, its response's "
           "headers printed)", EXIT_USAGE: "a file that cannot be read or holds no Ed25519 "
           "key, or no file named"},
    arguments=(
        ("key_files", {"nargs": "+", "metavar": "KEY_FILE",
                       "help": "an Ed25519 key: PEM (PKCS#8 private, or public) or a JWK"}),
        ("--signed-for", {"metavar": "AUTHORITY", "help": "the host (and port) the directory is "
                          "served from: its response is signed by each key (private keys "
                          "only), the body written to --out, the headers printed"}),
        ("--out", {"metavar": "FILE", "help": "with --signed-for: the body to serve"}),
        ("--lifetime", {"type": int, "default": 7 * 86_400, "metavar": "SECONDS", "help": "with "
                        "--signed-for: how long the signatures hold (default: 7 days)"}),
    ),
    runner="scrapy_rep.keydirectory:run",
)  # fmt: skip


def run(options: argparse.Namespace, out: TextIO, door: Door) -> int:
    """:data:`TOOL`'s runner: the directory of the key files ``options`` name, printed (or
    with ``--signed-for`` written to ``--out``, its response's headers printed); the exit
    status."""
    try:
        if options.signed_for is None:
            public = [keys.read_public_key(path) for path in options.key_files]
            print(json.dumps(keys.jwks(public), indent=2), file=out)
            return 0
        authority = options.signed_for.lower()
        if not options.out or not re.fullmatch(
            r"[a-z0-9.-]+(:[0-9]+)?|\[[0-9a-f:.]+\](:[0-9]+)?", authority
        ):
            raise keys.SigningKeyError("--signed-for takes a host[:port] and --out a file")
        private = [keys.read_private_key(path) for path in options.key_files]
        if any(Path(options.out).resolve() == Path(path).resolve() for path in options.key_files):
            raise keys.SigningKeyError(f"--out {options.out} is a key file: name another file")
        body, headers = signed_directory(private, authority, int(time.time()), options.lifetime)
        Path(options.out).write_bytes(body)
    except (keys.SigningKeyError, OSError) as error:
        print(f"scrapy_rep: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    for name, value in headers.items():
        print(f"{name}: {value}", file=out)
    return 0
