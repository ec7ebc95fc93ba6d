"""The diagnosis (checker/diagnosis.py) measured on the course itself, from its manifests and validation's record.

Leave-one-out: every mutant is left out in turn and its failure compared with the other mutants' known mistakes, as
a learner's mistake that no mutant encodes would be met. The table's columns: mutants; distinct fingerprints;
told apart (mutants whose fingerprint no other shares); and, of the left-out mutants, how many got no diagnosis,
the right pitfall among those named (another mutant stands for the same page pitfall or text, or fails every test
alike and is named with it), or only wrong ones. The corpus of alternative solutions (authoring/corpus.py) is the
other measure: `make diagnosis-report`.
"""
from __future__ import annotations

import pytest

from authoring import corpus, validate
from checker import diagnosis
from course import known, manifest


@pytest.fixture(scope="module")
def course_prints():
    """Every exercise's mutant fingerprints, from a clean validation (the build's cache, so the build reuses it)."""
    reports, errors = validate.validate_all(cache=manifest.cache_folder())
    assert errors == []
    gaps = [w for r in reports for w in r.warnings if "cannot be diagnosed" in w]
    assert gaps == [], "a mutant without a fingerprint:\n" + "\n".join(gaps)
    return {r.slug: r.prints for r in reports}


def test_leave_one_out_over_the_course(course_prints, capsys):
    """Each mutant against the others' known mistakes (authoring/corpus.py leave_one_out); each against all of them,
    itself included, is named. Only wrong pitfalls for at most 5% of an exercise's mutants (issue 33's target), and
    the table printed."""
    exercises = manifest.load_all()
    rows = []
    for slug, ex in sorted(exercises.items()):
        row = corpus.leave_one_out_row(ex, course_prints[slug])
        assert row[1] == len(ex.mutants), f"{slug}: a mutant without a fingerprint"
        assert row[6] <= 0.05 * row[1], f"{ex.id}: {row[6]} of {row[1]} left-out mutants told only a wrong pitfall"
        rows.append(row)
    with capsys.disabled():
        print("\n" + corpus._table(corpus.LEAVE_ONE_OUT, rows))


def test_the_starters_get_no_diagnosis(course_prints, tmp_path):
    """A learner who has written nothing yet (every test errors) is not told a known mistake."""
    exercises = manifest.load_all()
    for slug, ex in sorted(exercises.items()):
        deps = validate.dependency_files(ex, exercises)
        result = validate.run_solution(ex, ex.starter.read_text(encoding="utf-8"), deps, str(tmp_path))
        assert result["status"] != "passed"
        assert diagnosis.diagnose(result, known.from_prints(ex, course_prints[slug])) == [], slug
