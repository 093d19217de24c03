"""A history the operator cannot rewrite alone (docs/keys.md, "Witnesses"): a crawl run
twice into one signed trail, a witness (``rep-audit witness``, a process of its own with
its own key and state) cosigning each run's checkpoint as the operator gathers it
(``audit cosign``). The operator then rewrites run 1 (a fetched page's record deleted,
the requests after it renumbered, every chain, site line and head made again and signed
with the operator's key): ``check-bundle --key`` passes as before, ``check-bundle --key
--witness W`` fails, and the witness refuses to cosign the rewritten checkpoint. The
crawl's checkpoint is read by the tests' own reader of the C2SP formats too."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest_twisted

from tests.support import c2sp
from tests.support.robotsite import Sites, crawl, robots
from tests.support.signatures import operator_key, public_key_file
from tests.support.tools import audit_streams, audit_tool
from tests.support.trailfactory import resigned

WITNESS = "witness.test/w1"


def witness_command(tmp_path: Path, log: str) -> str:
    """The command that asks the witness (its key, its state folder, the log it trusts),
    each call counted as a line of ``calls``."""
    asked = (f"{sys.executable} -m rep_audit witness --key {tmp_path / 'witness.pem'} --name "
             f"{WITNESS} --state {tmp_path / 'state'} --log {log} -")  # fmt: skip
    return f"sh -c 'echo >> {tmp_path / 'calls'}; exec {asked}'"


@pytest_twisted.ensureDeferred
async def test_a_rewritten_and_resigned_run_passes_the_key_and_fails_the_witness(
    tmp_path: Path,
) -> None:
    operator_key(tmp_path / "key.pem")
    witness = operator_key(tmp_path / "witness.pem")
    (tmp_path / "state").mkdir()
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    trail = tmp_path / "trail.jsonl"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_AUDIT_SIGNING_KEY": str(tmp_path / "key.pem")}
    pages = [sites.url("a", path) for path in ("/p", "/q", "/private/x")]
    try:
        await crawl(pages, settings)
        head = json.loads(trail.read_text().splitlines()[-1])
        origin = head["checkpoint"].split("\n")[0]
        log = audit_tool("vkey", str(tmp_path / "key.pem"), "--name", origin)[1].strip()
        command = witness_command(tmp_path, log)
        wvkey = audit_tool("vkey", str(tmp_path / "witness.pem"), "--name", WITNESS,
                           "--witness")[1].strip()  # fmt: skip
        status, out, err = audit_streams("cosign", str(trail), "--witness", wvkey, command,
                                         "--out", str(tmp_path / "run1.note"))  # fmt: skip
        assert status == 0, err
        await crawl(pages, settings)
    finally:
        await sites.close()
    status, out, err = audit_streams("cosign", str(trail), "--witness", wvkey, command,
                                     "--out", str(tmp_path / "run2.note"))  # fmt: skip
    assert (status, out) == (0, f"{tmp_path / 'run2.note'}: 1 cosignature(s) of 1 witness(es)\n")
    assert len((tmp_path / "calls").read_text().splitlines()) == 2  # once a run
    public = witness.public_key().public_bytes_raw()
    cosigned = (tmp_path / "run2.note").read_text()  # read by the tests' own reader
    assert c2sp.cosigned_at(cosigned, WITNESS, public) is not None
    assert c2sp.verifies(cosigned, origin, c2sp.vkey(log)[3])
    site = sites.bases["a"]

    def checked(path: Path, *more: str) -> tuple[int, str]:
        bundle = path.with_suffix(".json")
        made = audit_streams("bundle", str(path), "--site", site, "--out", str(bundle), *more)
        assert made[0] == 0, made
        key = str(public_key_file(tmp_path / "key.pem"))
        status, out, err = audit_streams("check-bundle", str(bundle), "--key", key,
                                         "--witness", wvkey)  # fmt: skip
        return status, out + err

    status, said = checked(trail, "--cosigned", str(tmp_path / "run2.note"))
    assert status == 0 and f"witness {WITNESS}: cosigned the checkpoint of " in said, said
    forged = resigned(trail, tmp_path / "key.pem", sites.url("a", "/q"))
    assert audit_tool("verify", str(forged), "--key", str(tmp_path / "key.pem"))[0] == 0
    plain = audit_streams("bundle", str(forged), "--site", site, "--out", str(tmp_path / "f.json"))
    assert plain[0] == 0
    status, out, _ = audit_streams("check-bundle", str(tmp_path / "f.json"), "--key",
                                   str(public_key_file(tmp_path / "key.pem")))  # fmt: skip
    assert status == 0, out  # the key alone: run 1's page is gone, unseen
    told = sorted(line.split(": ")[1] for line in out.splitlines() if line.startswith("line "))
    assert told == sorted(sites.url("a", path) for path in ("/p", "/private/x", "/p", "/q",
                                                           "/private/x"))  # fmt: skip
    status, said = checked(forged)
    assert status == 1 and f"witness {WITNESS}: not counted: no cosignature of a checkpoint" in said
    status, out, err = audit_streams("cosign", str(forged), "--witness", wvkey, command,
                                     "--out", str(tmp_path / "forged.note"))  # fmt: skip
    assert status == 1 and "history was rewritten" in err, err
    assert len(err.splitlines()) == 1
