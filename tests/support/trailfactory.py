"""Trails written by the tests themselves, per schema v1 (docs/audit-trail.md): a run line,
snapshot lines, url lines and an end line, chained by SHA-256, with the snapshot bodies in
``<trail>.d/``. Plain or gzip (one member per line, as the writer does)."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from rep_engine.records import FATES
from rep_engine.trail.merkle import Frontier, leaf_hash

RUN = "0123456789abcdef0123456789abcdef"
ROBOTS = b"""User-agent: *
Disallow: /private
Allow: /private/ok
Content-Usage: /nottrain train-ai=n
"""
TDMREP = b'[{"location": "/books/*", "tdm-reservation": 1}]'
ORIGIN = "http://site.test"


def sha(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def run_line(**extra: Any) -> dict[str, Any]:
    return {
        "type": "run",
        "schema": 1,
        "run": RUN,
        "time": "2026-11-23T14:00:00.000Z",
        "version": "0.1.0",
        "standards": {"robots.txt": "RFC 9309"},
        "spider": "test",
        "agents": ["testbot"],
        "user_agent": "testbot/1.0",
        "purposes": ["search"],
        "profile": "google",
        "settings": {"REP_PROFILE": "google"},
        "resumes": None,
        "jobdir": None,
        **extra,
    }


def snapshot_line(body: bytes = ROBOTS, kind: str = "robots.txt", **extra: Any) -> dict[str, Any]:
    url = f"{ORIGIN}/robots.txt" if kind == "robots.txt" else f"{ORIGIN}/.well-known/tdmrep.json"
    return {
        "type": "snapshot",
        "run": RUN,
        "time": "2026-11-23T14:00:01.000Z",
        "sha256": sha(body),
        "kind": kind,
        "url": url,
        "final_url": url,
        "status": 200,
        "outcome": "parsed",
        "fetched": "2026-11-23T14:00:01.000Z",
        "bytes": len(body),
        **extra,
    }


def robots_part(
    line: int | None, rule: str = "", body: bytes = ROBOTS, agent: str = "testbot"
) -> dict[str, Any]:
    decided: dict[str, Any] = {"origin": ORIGIN, "snapshot": sha(body), "agent": agent}
    if line is None:
        decided["why"] = "no rule matches"
    else:
        decided.update(line=line, rule=rule)
    return decided


def url_line(path: str, fate: str = "fetched", **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "url",
        "run": RUN,
        "time": "2026-11-23T14:00:02.000Z",
        "id": sha(path.encode())[:40],
        "url": ORIGIN + path,
        "fate": fate,
        "attempts": 1,
        "status": 200,
    }
    if fate == "fetched":
        record.update(items_kept=1, items_dropped=0)
    record.update(extra)
    return record


def end_line(records: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    fates = Counter(r["fate"] for r in records if r["type"] == "url")
    counts = {"url": sum(fates.values()), "duplicates_dropped": 0}
    for fate in FATES:
        counts[fate] = fates[fate]
    return {
        "type": "end",
        "run": RUN,
        "time": "2026-11-23T14:00:09.000Z",
        "reason": "finished",
        "counts": counts,
        **extra,
    }


def standard_records() -> list[dict[str, Any]]:
    """One run: a fetched page, one refused by robots.txt, one allowed by a line."""
    body = [
        snapshot_line(),
        url_line("/", robots=robots_part(None)),
        url_line(
            "/private/x",
            fate="refused",
            status=None,
            refused_by="robots.txt",
            why="Forbidden by robots.txt",
            robots=robots_part(2, "Disallow: /private"),
        ),
        url_line("/private/ok/1", robots=robots_part(3, "Allow: /private/ok")),
    ]
    return [run_line(), *body, end_line(body)]


def encode(records: list[dict[str, Any]], prev: str = "", heads: bool = True) -> list[bytes]:
    """The lines, chained (``prev`` of the first: ``prev``), and each ``head`` line's
    ``size``, ``root`` and ``frontier`` made again over the lines before it (``heads``),
    as a forger who recomputes the hashes writes them (a signature is kept as it was)."""
    lines: list[bytes] = []
    tree = Frontier()
    for record in records:
        record = {**record, "prev": prev}
        if heads and record.get("type") == "head":
            record.update(size=tree.size, root=tree.root().hex(),
                          frontier=[node.hex() for node in tree.roots()])  # fmt: skip
        line = json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        prev = hashlib.sha256(line).hexdigest()
        tree.add(leaf_hash(line))
        lines.append(line)
    return lines


def write_trail(
    path: Path,
    records: list[dict[str, Any]] | None = None,
    bodies: tuple[bytes, ...] = (ROBOTS, TDMREP),
    lines: list[bytes] | None = None,
) -> Path:
    """Write the trail (gzip when ``path`` ends in ``.gz``) and its snapshots."""
    if lines is None:
        lines = encode(standard_records() if records is None else records)
    if path.name.endswith(".gz"):
        path.write_bytes(b"".join(gzip.compress(line) for line in lines))
    else:
        path.write_bytes(b"".join(lines))
    snapshots = path.with_name(path.name + ".d")
    snapshots.mkdir(exist_ok=True)
    for body in bodies:
        (snapshots / sha(body)).write_bytes(body)
    return path


def origin_robots(origin: int, rules: int = 0) -> bytes:
    """A robots.txt of its own for origin number ``origin`` (one snapshot each), with
    ``rules`` more Disallow lines after its own (a real file's size: about 30)."""
    more = b"".join(b"Disallow: /section-%d/*.php$\n" % n for n in range(rules))
    head = b"User-agent: *\nDisallow: /private\nAllow: /private/ok\n"
    return head + more + b"# origin %d\n" % origin


#: The paths asked of each origin of a trail written from real robots.txt files.
PATHS = ("/", "/search?q=a", "/wp-admin/x", "/private/x", "/cart", "/img/a.jpg", "/p/1.php")


def write_many_origins(
    path: Path,
    origins: int,
    records: int,
    wrong: bool = False,
    rules: int = 0,
    bodies: tuple[bytes, ...] = (),
) -> Path:
    """A plain trail of one run with ``records`` url lines over ``origins`` origins, each
    with its own robots.txt snapshot, the records taking the origins in turn (as a crawl
    interleaves them). ``wrong``: every record says robots.txt refused a page it allows
    (two findings each). ``rules``: see :func:`origin_robots`. ``bodies``: real robots.txt
    files instead, origin n the n-th (in turn) with its number in a comment, asked the
    :data:`PATHS` in turn, each record what the engine decides (``wrong``: the opposite).
    Written line by line (a million records in about 90 s on the shared machine)."""
    from rep_engine.robotstxt import parse_robotstxt

    snapshots = path.with_name(path.name + ".d")
    snapshots.mkdir(parents=True, exist_ok=True)
    fates: Counter[str] = Counter()
    prev = ""
    with path.open("wb") as file:

        def put(record: dict[str, Any]) -> None:
            nonlocal prev
            line = json.dumps({**record, "prev": prev}, separators=(",", ":")).encode() + b"\n"
            prev = hashlib.sha256(line).hexdigest()
            file.write(line)

        put(run_line())
        shas, decisions = [], []
        for n in range(origins):
            if bodies:
                body = bodies[n % len(bodies)] + b"\n# origin %d\n" % n
                parsed = parse_robotstxt(body)
                decided = [parsed.decide(f"http://o{n}.test{p}", "testbot") for p in PATHS]
                decisions.append([(d.allowed, d.line, d.explanation) for d in decided])
            else:
                body = origin_robots(n, rules)
            shas.append(sha(body))
            (snapshots / shas[-1]).write_bytes(body)
            url = f"http://o{n}.test/robots.txt"
            put({**snapshot_line(body), "url": url, "final_url": url})
        fate: dict[str, Any]
        for n in range(records):
            origin, page = n % origins, n // origins
            decided = {
                "origin": f"http://o{origin}.test",
                "snapshot": shas[origin],
                "agent": "testbot",
            }
            if bodies:
                allowed, line, explanation = decisions[origin][page % len(PATHS)]
                path_ = PATHS[page % len(PATHS)]
                if line is None:
                    decided["why"] = "no rule matches"
                else:
                    decided.update(line=line, rule="")
                if allowed != wrong:
                    fate = {"fate": "fetched", "items_kept": 1, "items_dropped": 0}
                else:  # the crawl's sentence (wrong: an Allow line's, as found)
                    fate = {
                        "fate": "refused",
                        "status": None,
                        "refused_by": "robots.txt",
                        "why": f"Forbidden by {decided['origin']}/robots.txt ({explanation})",
                    }
            elif page % 2 or wrong:
                decided.update(line=2, rule="Disallow: /private")
                path_ = f"/private/{page}" if not wrong else f"/{page}"
                fate = {"fate": "refused", "status": None}
                why = f"Forbidden by http://o{origin}.test/robots.txt (line 2: Disallow: /private)"
                fate.update(refused_by="robots.txt", why=why)
            else:
                decided["why"] = "no rule matches"
                path_, fate = f"/{page}", {"fate": "fetched", "items_kept": 1, "items_dropped": 0}
            fates[fate["fate"]] += 1
            put({"type": "url", "run": RUN, "time": "2026-11-23T14:00:02.000Z",
                 "id": f"{n:040x}", "url": f"http://o{origin}.test{path_}", "attempts": 1,
                 "status": 200, "robots": decided, **fate})  # fmt: skip
        counts = {"url": records, "duplicates_dropped": 0}
        for name in ("fetched", "refused", "failed", "redirected", "unfinished"):
            counts[name] = fates[name]
        put({"type": "end", "run": RUN, "time": "2026-11-23T14:00:09.000Z",
             "reason": "finished", "counts": counts})  # fmt: skip
    return path


# --------------------------------------------------------------------------- cut trails

#: The run id of the second run of a cut trail.
SECOND_RUN = "f" * 32


def cut_trail(path: Path) -> tuple[bytes, bytes]:
    """Two runs, the second cut in the middle of its last line (its end line); the bytes
    kept and the bytes of the cut line, as stored."""
    lines = encode(standard_records())
    second = [{**record, "run": SECOND_RUN} for record in standard_records()]
    lines += encode(second, prev=sha(lines[-1]))
    kept = stored_lines(lines, path.name.endswith(".gz"))
    whole, last = b"".join(kept[:-1]), kept[-1][: len(kept[-1]) // 2]
    write_trail(path, lines=lines)
    path.write_bytes(whole + last)
    return whole, last


def stored_lines(lines: list[bytes], gz: bool) -> list[bytes]:
    """The lines as the writer stores them (one gzip member each for a ``.gz`` trail)."""
    return [gzip.compress(line) for line in lines] if gz else lines


# --------------------------------------------------------------------------- several workers

#: The run id of a second worker.
OTHER_RUN = "fedcba9876543210fedcba9876543210"


def worker_records(run: str, paths: list[str], **extra: Any) -> list[dict[str, Any]]:
    body = [url_line(p, robots=robots_part(None), run=run, **extra) for p in paths]
    return [run_line(run=run), *body, end_line(body, run=run)]


def worker_trails(
    tmp_path: Path, first: list[dict[str, Any]], second: list[dict[str, Any]]
) -> list[str]:
    """Worker A's trail stores the robots.txt snapshot; worker B's names it only."""
    a = write_trail(tmp_path / "a.jsonl", first)
    b = write_trail(tmp_path / "b.jsonl", second, bodies=())
    return [str(a), str(b)]


def snapshotted_records(run: str, paths: list[str]) -> list[dict[str, Any]]:
    records = worker_records(run, paths)
    return [records[0], {**snapshot_line(), "run": run}, *records[1:]]


# --------------------------------------------------------------------------- hostile text

#: Sets the terminal's title, rings the bell, clears the screen, then fakes a line.
TITLE = "\x1b]0;pwned\x07\x1b[2J"
FAKE = "\r\nline 1: http://site.test/FAKE was fetched"
BIDI = "\u202egnp.exe\u2028\u2029\u2066\x85\x7f"
#: Any character a terminal acts on: what no output line may hold.
TERMINAL_UNSAFE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
)


def hostile_trail(path: Path) -> Path:
    """A trail whose crawled text (URLs, reasons, sources, the spider's name) holds
    :data:`TITLE`, :data:`FAKE` and :data:`BIDI`."""
    signal = {
        "vocabulary": "aipref",
        "source": f"header Content-Usage: train-ai=n{TITLE}",
        "answers": {"ai-train": False},
    }
    usage = {"answers": {"ai-train": False}, "decided_by": {"ai-train": 0}, "signals": [signal]}
    decided = {
        **robots_part(None),
        "why": f"no rule{FAKE}",
        "origin": f"http://site.test{BIDI}",
    }
    body: list[dict[str, Any]] = [
        snapshot_line(),
        url_line(
            "/x",
            fate="refused",
            refused_by=f"purpose{TITLE}",
            why=f"RSL says no{FAKE}",
            robots=decided,
            usage=usage,
            item_reason=BIDI,
        ),
        url_line(f"/y{TITLE}{BIDI}", robots=robots_part(None), to=FAKE),
    ]
    records = [run_line(spider=f"spider{TITLE}", purposes=["search", "ai-train"]), *body]
    return write_trail(path, [*records, end_line(body, reason=FAKE)])


def assert_terminal_safe(out: str) -> None:
    """``out`` holds no character a terminal acts on, and no faked line of output."""
    assert not TERMINAL_UNSAFE.search(out), repr(TERMINAL_UNSAFE.search(out))
    assert "FAKE was fetched" not in out.replace("\\r\\nline 1: http://site.test/FAKE", "")


# --------------------------------------------------------------------------- the report's states

AIPREF_SOURCE = "header Content-Usage: train-ai=n"
NOAI_META = '<meta name="robots" content="noai">'
LONG_PATH = (
    "/catalogue/section-one/sub-section-two/a-rather-long-product-name"
    "?colour=red&size=xl&ref=abcdef"
)


def denying_usage(vocabulary: str, source: str) -> dict[str, Any]:
    return {
        "answers": {"search": None, "ai-train": False, "ai-input": None},
        "decided_by": {"ai-train": 0},
        "signals": [{"vocabulary": vocabulary, "answers": {"ai-train": False}, "source": source}],
    }


def dropped_line(path: str, vocabulary: str, source: str) -> dict[str, Any]:
    return url_line(path, robots=robots_part(None), items_kept=0, items_dropped=1,
                    item_reason="purpose", usage=denying_usage(vocabulary, source))  # fmt: skip


def report_states_records() -> list[dict[str, Any]]:
    """A run in every state the HTML report draws: fetched, items dropped by a header's
    and by a meta tag's signal, refused by robots.txt, a long URL. It resumes a run the
    trail does not hold: a report of it finds that one problem."""
    run = run_line(
        purposes=["ai-train"],
        agents=["testbot", "Google-Extended", "GPTBot", "CCBot", "anthropic-ai"],
        user_agent="Mozilla/5.0 (compatible; testbot/1.0; +https://example.test/bot-info-page)",
        profile="google",
        resumes="fedcba9876543210fedcba9876543210",
        spider="a_spider_with_a_long_descriptive_name",
    )
    body = [snapshot_line()]
    body += [url_line(f"/docs/{n}", robots=robots_part(None)) for n in range(3)]
    body += [dropped_line(f"/aipref/{n}", "aipref", AIPREF_SOURCE) for n in range(3)]
    body += [dropped_line(f"/meta/{n}", "robots-meta", NOAI_META) for n in range(2)]
    body += [url_line("/private/1", fate="refused", status=None, refused_by="robots.txt",
                      robots=robots_part(2, "Disallow: /private"))]  # fmt: skip
    body += [url_line(LONG_PATH, robots=robots_part(None))]
    return [run, *body, end_line(body, reason="closespider_itemcount")]


def resigned(trail: Path, key: Path, dropped: str, name: str = "resigned.jsonl") -> Path:
    """What an operator who rewrites history writes: a copy of ``trail`` beside it
    (``name``, its snapshots linked) without the first record (a request's ``url``, or a
    recheck's ``item``) of the URL ``dropped``, the request numbers after it and the
    counts of its run's end line made one less, written again by the trail's own writer,
    which chains each line, counts each site's records and signs each head again with the
    operator's ``key``: the same log (its origin named after the same first line)."""
    from rep_audit.treeheads import head_options
    from rep_engine.settings import RepConfig
    from rep_engine.trail.file import TrailFile

    records = [json.loads(line) for line in trail.read_text().splitlines()]
    gone = next(r for r in records if r.get("type") in ("url", "item") and r["url"] == dropped)
    number = int(gone["id"].rpartition("-")[2]) if gone["type"] == "url" else None
    counted = ("url", gone["fate"]) if number else ("items", f"items_{gone['status']}")
    forged = trail.with_name(name)
    forged.with_name(f"{name}.d").symlink_to(trail.with_name(trail.name + ".d"))
    writer = TrailFile(
        forged, head_options(RepConfig.from_settings({"REP_AUDIT_SIGNING_KEY": str(key)}))
    )
    for record in records:
        if record is gone or record["type"] in ("site", "head"):
            continue
        record.pop("prev")
        record.pop("site_prev", None)
        key_of, _, n = str(record.get("id", "")).rpartition("-")
        if number and record["type"] == "url" and n.isdigit() and int(n) > number:
            record["id"] = f"{key_of}-{int(n) - 1}"
        if number and record["type"] == "end" and record["last_request"] >= number:
            record["last_request"] -= 1
        if record["type"] == "end" and record["run"] == gone["run"]:
            for count in counted:
                record["counts"][count] -= 1
        writer.write(record)
    writer.close()
    return forged
