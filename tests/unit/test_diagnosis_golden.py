"""The diagnosis on its golden cases (tests/fixtures/diagnosis/cases.json): a check's result and the known mistakes,
and what is named. The browser and `ol` name mistakes with the same checker/diagnosis.py; the Pyodide tier runs
this very file inside Pyodide (tests/pyodide/test_unit_in_pyodide.py), so both runtimes are held to one record."""
import json
from pathlib import Path

import pytest

from checker import diagnosis

CASES = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "diagnosis" / "cases.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["why"] for c in CASES])
def test_the_golden_case(case):
    assert diagnosis.diagnose(case["result"], case["mistakes"]) == case["diagnosis"]


def test_the_cases_cover_a_name_a_choice_and_silence():
    named = [len(c["diagnosis"]) for c in CASES]
    assert 0 in named and 1 in named and any(n > 1 for n in named)
