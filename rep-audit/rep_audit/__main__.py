"""``python -m rep_audit COMMAND …`` and the ``rep-audit`` script: :mod:`rep_audit.cli`
without Scrapy, for whoever holds a trail (a site's owner, an auditor)."""

from __future__ import annotations

import sys

from rep_audit.cli import main


def run() -> None:
    """The ``rep-audit`` script: ``audit``'s command line, its exit status."""
    sys.exit(main(sys.argv[1:], prog="rep-audit"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], prog="python -m rep_audit"))
