"""The files a crawl writes are checked at start, by one rule (docs/settings.md,
``REP_REPORT_FILE`` and ``REP_AUDIT_FILE``): a missing folder is made when the file is
written; a path that cannot be written stops the crawl with one line naming the setting
(the report used to fail at the end, exit 0); an existing file that is not a trail is
not chained on."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from scrapy.settings import Settings

from rep_engine.settings.readers import RepSettingError
from rep_engine.trail.file import TrailFile, TrailFileError
from scrapy_rep.crawl.startup import validate
from tests.support.trailfactory import write_trail

SETTINGS = ["REP_AUDIT_FILE", "REP_REPORT_FILE"]


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("missing", ["nope", "nope/deeper"])
def test_a_file_in_a_missing_folder_passes_and_nothing_is_made_yet(
    tmp_path: Path, setting: str, missing: str
) -> None:
    """One rule for both files (docs/settings.md): missing folders are made when the
    file is written, so the check at start lets them through, and creates nothing."""
    path = tmp_path / missing / "file.txt"
    validate(Settings({setting: str(path)}))
    assert not (tmp_path / "nope").exists()


@pytest.mark.parametrize("setting", SETTINGS)
def test_a_folder_that_cannot_be_made_is_refused_alike(tmp_path: Path, setting: str) -> None:
    (tmp_path / "a-file").write_text("")
    under_a_file = tmp_path / "a-file" / "deeper" / "file.txt"
    with pytest.raises(RepSettingError) as raised:
        validate(Settings({setting: str(under_a_file)}))
    assert str(raised.value) == (
        f"{setting}: {under_a_file} is under {tmp_path / 'a-file'}, which is not a folder"
    )


def test_the_rule_is_written_once_for_both_settings() -> None:
    """docs/settings.md gives both sections the same sentence."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "settings.md").read_text("utf-8")
    rules = []
    for setting in SETTINGS:
        section = page.split(f"### `{setting}`\n", 1)[1].split("\n### ", 1)[0]
        rule = section.split("- One rule for both files", 1)[1].split("(exit 2).", 1)[0]
        rules.append(" ".join(rule.split()))
    assert rules[0] == rules[1]
    assert "missing folders are made" in rules[0]


def test_report_file_unusable_for_other_reasons(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    with pytest.raises(RepSettingError, match=r"^REP_REPORT_FILE: .* is a directory$"):
        validate(Settings({"REP_REPORT_FILE": str(tmp_path)}))
    under_a_file = tmp_path / "a-file" / "report.txt"
    with pytest.raises(RepSettingError, match=r"^REP_REPORT_FILE: .*which is not a folder$"):
        validate(Settings({"REP_REPORT_FILE": str(under_a_file)}))


def test_report_file_in_an_existing_folder_passes(tmp_path: Path) -> None:
    assert validate(Settings({"REP_REPORT_FILE": str(tmp_path / "r.txt")})).report_file
    assert not (tmp_path / "r.txt").exists()


#: Files a trail is not (name, bytes): an items feed, a CSV, a feed gzip-compressed, a
#: JSON line of no trail type, plain text named as a gzip trail.
NOT_TRAILS = {
    "items.jsonl": b'{"url": "https://x.example/1", "title": "t"}\n',
    "items.csv": b"url,title\nhttps://x.example/1,t\n",
    "items.jsonl.gz": gzip.compress(b'{"url": "https://x.example/1"}\n'),
    "other.jsonl": b'{"type": "url", "url": "https://x.example/1"}\n',
    "text.jsonl.gz": b'{"type": "run", "prev": ""}\n',
}


@pytest.mark.parametrize("name", NOT_TRAILS)
def test_an_existing_file_that_is_no_trail_stops_the_crawl_naming_it(
    tmp_path: Path, name: str
) -> None:
    """A trail is appended to: chained onto an items feed, its lines were mixed into the
    collection without a word (and the trail never verified clean)."""
    path = tmp_path / name
    path.write_bytes(NOT_TRAILS[name])
    with pytest.raises(RepSettingError) as raised:
        validate(Settings({"REP_AUDIT_FILE": str(path)}))
    assert str(raised.value) == (
        f"REP_AUDIT_FILE: {path} is not an audit trail (its first line is not the run line "
        "a trail starts with): the trail would be appended to it; name another file"
    )
    assert path.read_bytes() == NOT_TRAILS[name]


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
def test_a_trail_an_empty_file_and_a_new_one_can_be_chained_on(tmp_path: Path, name: str) -> None:
    for path in (write_trail(tmp_path / name), tmp_path / f"empty-{name}", tmp_path / "new" / name):
        if path.name.startswith("empty"):
            path.write_bytes(b"")
        assert validate(Settings({"REP_AUDIT_FILE": str(path)})).audit_file == str(path)


def test_a_file_that_is_no_trail_is_left_to_the_trail_when_not_required(tmp_path: Path) -> None:
    """``REP_AUDIT_REQUIRED = False``: the trail warns, and writes nothing to it (the
    crawl: tests/integration/test_audit.py)."""
    path = tmp_path / "items.jsonl"
    path.write_bytes(NOT_TRAILS["items.jsonl"])
    validate(Settings({"REP_AUDIT_FILE": str(path), "REP_AUDIT_REQUIRED": False}))
    with pytest.raises(TrailFileError, match="is not an audit trail"):
        TrailFile(path)
    assert path.read_bytes() == NOT_TRAILS["items.jsonl"]


def _feed_key(tmp_path: Path, form: str) -> object:
    """``tmp_path/items.jsonl`` as a ``FEEDS`` key of the form ``form``."""
    path = tmp_path / "items.jsonl"
    if form == "uri":
        return path.as_uri()
    if form == "pathlib":
        return path
    if form == "relative":
        return "sub/../items.jsonl"
    if form == "symlink":
        path.write_bytes(b"")
        (tmp_path / "link.jsonl").symlink_to(path.name)
        return str(tmp_path / "link.jsonl")
    return str(path)


@pytest.mark.parametrize("form", ["path", "uri", "pathlib", "relative", "symlink"])
@pytest.mark.parametrize("required", [True, False])
def test_a_trail_that_is_a_feed_of_the_crawl_stops_it_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str, required: bool
) -> None:
    """The items and the trail's lines were written into one file: the feed had lines that
    are no items, the chain broke after each item. Refused, the trail required or not."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    key = _feed_key(tmp_path, form)
    trail = tmp_path / "items.jsonl"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_AUDIT_REQUIRED": required,
                "FEEDS": {key: {"format": "jsonlines"}}}  # fmt: skip
    with pytest.raises(RepSettingError) as raised:
        validate(Settings(settings))
    given = str(key.absolute()) if isinstance(key, Path) else key
    assert str(raised.value) == (
        f"REP_AUDIT_FILE: {trail} is also the feed {given!r} of FEEDS: the trail's lines and "
        "the feed's items would be written into one file; give each its own file"
    )


def test_the_report_is_a_file_of_its_own_too(tmp_path: Path) -> None:
    both = tmp_path / "out.txt"
    with pytest.raises(RepSettingError) as raised:
        validate(Settings({"REP_AUDIT_FILE": str(both), "REP_REPORT_FILE": str(both)}))
    assert str(raised.value) == (
        f"REP_REPORT_FILE: {both} is also REP_AUDIT_FILE ({both}): the report and the trail's "
        "lines would be written into one file; give each its own file"
    )
    with pytest.raises(RepSettingError, match=r"^REP_REPORT_FILE: .* is also the feed .* of "):
        validate(Settings({"REP_REPORT_FILE": str(both), "FEEDS": {str(both): {}}}))
    with pytest.raises(RepSettingError, match=r"^REP_AUDIT_FILE: .* is also the feed .* of FEED_"):
        validate(Settings({"REP_AUDIT_FILE": str(both), "FEED_URI": both.as_uri()}))


@pytest.mark.parametrize(
    "key",
    ["%(name)s.jsonl", "items-%(batch_id)d.jsonl", "stdout:", "s3://bucket/items.jsonl",
     "other.jsonl"],
)  # fmt: skip
def test_feeds_not_compared_or_elsewhere_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    """A placeholder names the file when the feed opens (only then can it be compared);
    another storage writes no local file; another file is another file."""
    monkeypatch.chdir(tmp_path)
    for trail in ("items.jsonl", "%(name)s.jsonl"):
        settings = {"REP_AUDIT_FILE": trail, "FEEDS": {key: {"format": "jsonlines"}}}
        assert validate(Settings(settings)).audit_file == trail


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [("REP_AUDIT_SIGNING_KEY", "missing.pem", "missing.pem: cannot be read (No such file"),
     ("REP_AUDIT_SIGNING_KEY", "public.pem", "public.pem: a public key, not the private key"),
     ("REP_AUDIT_HEAD_FILE", "t.jsonl.d/heads", "is the trail or in its snapshot folder"),
     ("REP_AUDIT_HEAD_FILE", "t.jsonl", "is the trail or in its snapshot folder"),
     ("REP_AUDIT_HEAD_FILE", ".", "is a directory")],
    ids=["key-missing", "key-public", "head-file-in-snapshots", "head-file-the-trail",
         "head-file-a-folder"],
)  # fmt: skip
def test_a_signing_key_or_head_file_that_cannot_be_used_stops_the_crawl_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str, said: str
) -> None:
    """docs/settings.md, ``REP_AUDIT_SIGNING_KEY`` and ``REP_AUDIT_HEAD_FILE``: a key that
    cannot sign the trail's heads, or a head file the trail's keeper would rewrite with the
    trail, stops the crawl before its first request, naming the setting."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "public.pem").write_bytes(
        b"-----BEGIN PUBLIC KEY-----\n"
        b"MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n"
        b"-----END PUBLIC KEY-----\n"
    )
    with pytest.raises(RepSettingError) as raised:
        validate(Settings({"REP_AUDIT_FILE": "t.jsonl", name: value}))
    assert str(raised.value).startswith(f"{name}: ") and said in str(raised.value)
