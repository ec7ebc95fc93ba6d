"""The golden progress files (tests/fixtures/exchange/) as ol reads them; web/test/exchange.test.mjs reads the same
files and holds the browser to the same outcomes, so the two readers cannot drift apart."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ol import exchange

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "exchange"
CASES = {name: case for name, case in json.loads((GOLDEN / "cases.json").read_text()).items() if name != "_"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_ol_reads_each_golden_file_as_the_browser_does(name):
    case, text = CASES[name], (GOLDEN / name).read_text(encoding="utf-8")
    if case["accepted"]:
        dump = exchange.parse(text, exchange.COURSE)
        assert sorted(dump.skipped) == case["skipped"]
        raw = json.loads(text)["data"]
        assert set(dump.data) == set(raw) - set(case["skipped"])
    else:
        with pytest.raises(exchange.ExchangeError) as caught:
            exchange.parse(text, exchange.COURSE)
        assert case["says"] in str(caught.value)


def test_every_golden_file_has_a_case():
    assert sorted(p.name for p in GOLDEN.glob("*.json") if p.name != "cases.json") == sorted(CASES)


def test_what_ol_writes_it_reads_back_whole():
    data = json.loads((GOLDEN / "from-ol.json").read_text())["data"]
    again = exchange.parse(exchange.render(data, course=exchange.COURSE, build="b", origin="ol"), exchange.COURSE)
    assert again.data == data and again.skipped == []
