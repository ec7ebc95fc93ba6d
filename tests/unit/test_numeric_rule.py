"""The numeric answer rule (course/numeric.py) on the golden cases the JavaScript side reads too
(web/test/numeric-rule.test.mjs), and validation proving an author's answer by that same rule."""
import json
from pathlib import Path

import pytest

from course import numeric

CASES = json.loads((Path(__file__).resolve().parent.parent / "fixtures" / "numeric" / "cases.json").read_text())


@pytest.mark.parametrize("value, target, tolerance, counts, why", CASES["cases"], ids=[c[4] for c in CASES["cases"]])
def test_the_golden_cases(value, target, tolerance, counts, why):
    assert numeric.close(float(value), float(target), tolerance) is counts, why


def test_the_cases_cover_tolerance_zero_and_large_targets():
    assert any(tol == 0 for _, _, tol, _, _ in CASES["cases"])
    assert any(abs(float(t)) >= 1e6 for _, t, _, _, _ in CASES["cases"] if t not in ("Infinity", "NaN"))


def test_validation_proves_answers_by_the_page_rule():
    """Where math.isclose (validation's old rule) and the page disagreed: tolerance 0 with a float sum's last bits
    (isclose refused what the page accepts), and a large target (isclose scaled by the larger of the two)."""
    from authoring import validate

    assert validate._close(0.1 + 0.2, (0.3,), 0.0)
    assert not validate._close(1000002.0, (1000000.0,), 1e-6)
    assert validate._close([1.0, 2.0], (1.0, 2.0), 0.0) and not validate._close([1.0], (1.0, 2.0), 0.0)
