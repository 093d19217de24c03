"""Differential check: scrapy_rep's "google" profile against Google's C++ parser.

Runs every real robots.txt of ``../shared/corpus`` with its 50 URLs (``urls.jsonl``) and
the agents Googlebot, Bingbot and mybot through both parsers and reports how often they
agree. Every disagreement is put in a class, so that the deliberate ones (SPEC.md
decides) can be told from bugs:

- ``leading-slash``: the deciding rule does not start with ``/`` or ``*``; SPEC §1 reads
  ``Disallow: fish/`` as ``/fish/``, Google ignores such a rule.
- ``empty-query``: the URL ends in ``?``; the bindings' URL parser drops an empty query,
  SPEC §1 matches the URL as given.
- ``dot-segment``: the path has ``/./`` or ``/../``, which the bindings' URL parser
  resolves; SPEC §1 matches the URL as given.
- ``percent-encoding``: the URL or the rule has ``%xx`` escapes or characters the
  bindings escape (``{``, ``|``…): the bindings' URL parser decodes some escapes
  (``%7E`` -> ``~``); SPEC §1 only uppercases their hex and decodes nothing.
- ``other``: none of the above: worth a look.

Google's parser comes from the ``fast-robotstxt`` package (ctypes bindings of
google/robotstxt, ``pip install -e ".[bench]"``).

Usage: ``python benchmarks/google_diff.py [--corpus DIR] [--show N]``
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from scrapy_rep import Decision, parse_robotstxt

AGENTS = ("Googlebot", "Bingbot", "mybot")
DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def classify(url: str, decision: Decision, google_allowed: bool) -> str:
    """The class of one disagreement (see the module docstring)."""
    if decision.pattern is not None and not decision.pattern.startswith(("/", "*")):
        return "leading-slash"
    if url.endswith("?"):
        return "empty-query"
    path = url.split("://", 1)[-1]
    if any(part in (".", "..") for part in path.split("?", 1)[0].split("/")):
        return "dot-segment"
    if "%" in url or (decision.pattern is not None and "%" in decision.pattern):
        return "percent-encoding"
    if not google_allowed and decision.line is None:
        return "percent-encoding"  # Google matched a rule only after escaping the URL
    return "other"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--show", type=int, default=5, help="examples shown per class")
    args = parser.parse_args()
    # This directory holds robotstxt.py (our benchmark), which would shadow the package.
    here = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]
    try:
        from robotstxt import RobotsMatcher
    except ImportError:
        print('needs Google\'s parser: pip install -e ".[bench]"', file=sys.stderr)
        return 2
    urls_file = args.corpus / "urls.jsonl"
    if not urls_file.is_file():
        print(f"corpus not found: {urls_file}", file=sys.stderr)
        return 2
    matcher = RobotsMatcher()
    total = 0
    classes: collections.Counter[str] = collections.Counter()
    examples: dict[str, list[str]] = collections.defaultdict(list)
    entries = [json.loads(line) for line in urls_file.read_text().splitlines()[1:]]
    for entry in entries:
        body = (args.corpus / entry["file"]).read_bytes()[:MAX_BODY_BYTES]
        ours = parse_robotstxt(body)
        text = body.decode("utf-8", "replace")
        for agent in AGENTS:
            for url in entry["urls"]:
                total += 1
                google_allowed = bool(matcher.is_allowed(text, agent, url))
                decision = ours.decide(url, agent)
                if decision.allowed != google_allowed:
                    kind = classify(url, decision, google_allowed)
                    classes[kind] += 1
                    if len(examples[kind]) < args.show:
                        examples[kind].append(
                            f"{entry['file']} {agent} {url[:90]}: ours {decision}, "
                            f"Google {'allowed' if google_allowed else 'disallowed'}"
                            f" (line {matcher.matching_line})"
                        )
    differing = sum(classes.values())
    print(f"{len(entries)} files, {total} checks ({', '.join(AGENTS)})")
    print(f"agree: {total - differing} ({100 * (total - differing) / total:.2f} %)")
    print("| class | checks | share of all |\n|---|---|---|")
    for kind, count in classes.most_common():
        print(f"| {kind} | {count} | {100 * count / total:.3f} % |")
    for kind, lines in examples.items():
        print(f"\n{kind}:")
        for line in lines:
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
