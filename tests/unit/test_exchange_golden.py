"""The golden progress files (tests/fixtures/exchange/) as ol reads them; web/test/exchange.test.mjs reads the same
files and holds the browser to the same outcomes, so the two readers cannot drift apart."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ol import exchange

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "exchange"
ALL = json.loads((GOLDEN / "cases.json").read_text(encoding="utf-8"))
CASES = {name: case for name, case in ALL.items() if not name.startswith("_")}


@pytest.mark.parametrize("name", sorted(CASES))
def test_ol_reads_each_golden_file_as_the_browser_does(name):
    case, text = CASES[name], (GOLDEN / name).read_text(encoding="utf-8")
    if case["accepted"]:
        dump = exchange.parse(text, exchange.COURSE)
        assert sorted(dump.skipped) == case["skipped"]
        assert dump.learner == case["learner"]
        raw = exchange.loads(text)["data"]  # as the browser reads it: ten thousand digits are a float
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


@pytest.mark.parametrize("typed, kept", ALL["_names"])
def test_a_learners_name_is_tidied_as_the_browser_tidies_it(typed, kept):
    assert exchange.learner_name(typed) == kept


def test_the_name_travels_in_what_ol_writes():
    text = exchange.render({}, course=exchange.COURSE, build="b", origin="ol", learner="  Grace\tHopper ")
    assert json.loads(text)["learner"] == "Grace Hopper"
    assert exchange.parse(text, exchange.COURSE).learner == "Grace Hopper"
    assert "learner" not in json.loads(exchange.render({}, course=exchange.COURSE, build="b", origin="ol"))


def test_help_records_merge_their_pitfalls():
    merged = exchange.merge_help({"hints": 1, "pitfalls": ["1. a", "b"]}, {"failed": 2, "pitfalls": ["b", "c", 3]})
    assert merged == {"hints": 1, "failed": 2, "pitfalls": ["1. a", "b", "c"]}
    assert exchange.pitfall_labels([{"pitfall": "a", "number": 2}, {"pitfall": "b", "number": None}, {}]) == ["2. a", "b"]


def test_json_is_read_as_a_browser_reads_it():
    """ol reads numbers, constants and nesting as JSON.parse does (web/test/exchange.test.mjs holds the page to the
    same): an integer past 2**53 is the nearest double, ten thousand digits included (Python's int() would raise),
    NaN is not JSON, and a file nested past DEPTH_MAX is refused before Python's parser runs out of stack."""
    assert exchange.loads("[9007199254740991, 9007199254740993, -0]") == [2 ** 53 - 1, 9007199254740992.0, 0]
    assert exchange.loads("[" + "9" * 10_000 + "]") == [float("inf")]
    for text, says in [("[NaN]", "not valid JSON"), ("[-Infinity]", "not valid JSON"),
                       ("[" * 101 + "]" * 101, "nests deeper"), ("[" * 100_000, "nests deeper"),
                       ('["[[[[", ' + "[" * 50 + "x ]]", "not valid JSON")]:
        with pytest.raises(exchange.ExchangeError, match=says):
            exchange.loads(text)
    assert exchange.depth_of(exchange.loads("[" * 100 + "]" * 100)) == 100
    assert exchange.learner_name("a\ud800b") == "a\ufffdb" and exchange.merge_pitfalls(["\udfffx"]) == ["\ufffdx"]
    assert exchange.pitfall_labels([{"pitfall": "p", "number": 1e300}, {"pitfall": "q", "number": 3.0}]) == ["p", "3. q"]
