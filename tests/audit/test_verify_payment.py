"""``audit verify`` on the record of a page answered 402 Payment Required
(``payment_required``, docs/audit-trail.md): clean as the crawl writes it, its decision
re-derived as a fetched page's (robots.txt allowed its request); a record that claims the
fate without a 402, a ``payment`` part on another fate's record, or one that bloats or is
not the crawl's shape, is found."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rep_audit.verify import verify
from rep_engine.trail.lines import PAYMENT_VALUE_KEPT
from tests.support.tools import audit_streams
from tests.support.trailfactory import (
    end_line,
    robots_part,
    standard_records,
    url_line,
    write_trail,
)

PRICE = {"crawler-price": "USD 0.01"}


def _with_paid_page(tmp_path: Path, **fields: Any) -> Path:
    """The standard trail and a page answered 402, allowed by robots.txt line 3 (its
    fields replaced by ``fields``)."""
    records = standard_records()
    paid = url_line("/private/ok/paid", robots=robots_part(3, "Allow: /private/ok"),
                    fate="payment_required", status=402, payment=PRICE)  # fmt: skip
    paid.update(fields)
    paid = {key: value for key, value in paid.items() if value is not None}
    records[-1:] = [paid, end_line([*records[1:-1], paid])]
    return write_trail(tmp_path / "trail.jsonl", records)


def test_a_page_answered_402_as_the_crawl_writes_it_is_clean_and_counted(
    tmp_path: Path,
) -> None:
    trail = _with_paid_page(tmp_path)
    result = verify(trail)
    assert result.clean, [str(finding) for finding in result.findings]
    code, out, _ = audit_streams("summary", str(trail))
    assert code == 0 and "4 requested URL(s) (2 fetched, 1 payment_required, 1 refused)" in out, out


def test_a_page_answered_402_that_robots_txt_disallows_is_found(tmp_path: Path) -> None:
    """It was sent: robots.txt must have allowed it, as a fetched page's."""
    trail = _with_paid_page(tmp_path, url="http://site.test/private/paid",
                            robots=robots_part(3, "Allow: /private/ok"))  # fmt: skip
    found = [str(finding) for finding in verify(trail).findings]
    assert any("/private/paid" in finding for finding in found), found


#: (the fields forged on the paid page's record, what a finding says).
FORGED: list[tuple[dict[str, Any], str]] = [
    ({"status": 200}, "whose status is 200: only a 402 answer is"),
    ({"status": None}, "whose status is None"),
    ({"status": "402"}, "whose status is '402'"),
    ({"fate": "fetched"}, "a fetched record says payment"),
    ({"payment": {"crawler-price": "x" * (PAYMENT_VALUE_KEPT + 2)}}, "is not as the crawl"),
    ({"payment": {"crawler-price": 1}}, "is not as the crawl"),
    ({"payment": {"price": "USD 1"}}, "is not as the crawl"),
    ({"payment": "USD 0.01"}, "is not as the crawl"),
    ({"payment": {}}, "is not as the crawl"),
]


@pytest.mark.parametrize(("fields", "said"), FORGED, ids=repr)
def test_a_forged_payment_record_is_found(
    tmp_path: Path, fields: dict[str, Any], said: str
) -> None:
    trail = _with_paid_page(tmp_path, **fields)
    found = [str(finding) for finding in verify(trail).findings]
    assert any("/private/ok/paid" in f and said in f for f in found), found


def test_a_price_cut_as_the_crawl_cuts_it_is_clean(tmp_path: Path) -> None:
    cut = {"crawler-price": "9" * PAYMENT_VALUE_KEPT + "…", "crawler-error": "invalid"}
    assert verify(_with_paid_page(tmp_path, payment=cut)).clean
