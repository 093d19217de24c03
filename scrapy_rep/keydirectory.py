"""``python -m scrapy_rep key-directory KEY_FILE…``: the key directory an operator publishes
for Web Bot Auth (draft-ietf-webbotauth-httpsig-protocol-01, "Key Distribution and
Discovery", "Directory Format"; docs/keys.md).

Prints the JWK Set (RFC 7517 §5) of the public keys of the files given, each an Ed25519 key
as :mod:`rep_engine.keys` reads it (the private key the crawl signs with, or a public key:
the old one kept while a new one takes over), each key once with its thumbprint as ``kid``.
The operator serves it at ``/.well-known/http-message-signatures-directory`` of the URL
``REP_WEB_BOT_AUTH_AGENT`` names, over HTTPS, as
``application/http-message-signatures-directory+json``. Pure: no Scrapy, no network; the
private key never leaves the file.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Sequence
from typing import Final, TextIO

from rep_engine import keys
from scrapy_rep.checker.exits import EXIT_USAGE, HELP_WIDTH

#: What the command does, as its ``--help`` and ``python -m scrapy_rep --help`` say it.
SUMMARY: Final = "print the key directory (JWKS) to publish for signed requests"
#: Where the directory is published, and as what (the draft's well-known URI and media type).
WELL_KNOWN: Final = "/.well-known/http-message-signatures-directory"
MEDIA_TYPE: Final = "application/http-message-signatures-directory+json"


def parser() -> argparse.ArgumentParser:
    about = textwrap.fill(
        f"{SUMMARY[0].upper()}{SUMMARY[1:]}: the public keys of the Ed25519 key files given "
        "(the private key REP_WEB_BOT_AUTH_KEY names, or public keys), as a JSON Web Key Set, "
        "each key's kid its RFC 7638 thumbprint (the keyid of its signatures).",
        width=HELP_WIDTH,
    )
    publish = textwrap.fill(
        f"Publish it over HTTPS at {WELL_KNOWN} of your site, as {MEDIA_TYPE}, and set "
        "REP_WEB_BOT_AUTH_AGENT to its URL. Make a key with: openssl genpkey -algorithm "
        "ed25519 -out key.pem (docs/keys.md). Exit status 0, or 2 for a file that holds no "
        "Ed25519 key.",
        width=HELP_WIDTH,
    )
    command = argparse.ArgumentParser(
        prog="python -m scrapy_rep key-directory",
        description=about,
        epilog=publish,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument(
        "key_files",
        nargs="+",
        metavar="KEY_FILE",
        help="an Ed25519 key: PEM (PKCS#8 private, or public) or a JWK",
    )
    return command


def main(argv: Sequence[str], out: TextIO | None = None) -> int:
    """The command with ``argv`` (after its name); the exit status."""
    try:
        options = parser().parse_args(list(argv))
    except SystemExit as exit_:
        return 0 if exit_.code == 0 else EXIT_USAGE
    try:
        public = [keys.read_public_key(path) for path in options.key_files]
    except keys.SigningKeyError as error:
        print(f"scrapy_rep: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(json.dumps(keys.jwks(public), indent=2), file=out or sys.stdout)
    return 0
