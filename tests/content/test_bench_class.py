"""The class view's benchmark (bench/class_view.py): the class it makes and the table it writes, without a browser."""
from __future__ import annotations

from bench import class_view
from course import manifest
from ol import classroom
from ol.classrun import columns_of


def test_the_benchmarks_class_claims_every_pass_with_code_no_two_learners_share():
    files = class_view.class_files(3)
    columns = columns_of(manifest.load_all())
    found = classroom.gather(files, columns)
    assert found.rejected == [] and [l.name for l in found.learners] == ["Learner 001", "Learner 002", "Learner 003"]
    tasks = classroom.plan(found.learners, columns)
    assert len(tasks) == 3 * len(columns), "every exercise of every learner is checked again"
    assert len({l.work[c.slug].code for l, c in tasks}) == len(tasks), "nothing can be answered from a cache"


def test_the_table_names_its_columns_and_sorts_by_class_size():
    row = {"engine": "chromium", "learners": 30, "checks": 120, "held": 120, "workers": 2, "wall_s": 63.8,
           "lag_max_ms": 325, "lag_p95_ms": 30, "longest_task_ms": None, "slowest_input_ms": None, "inputs": None}
    text = class_view.markdown([row, {**row, "path": "separated", "wall_s": 110.6}])
    assert text.startswith("| engine | path | learners | passes checked again (held) | workers | wall time |")
    assert "| chromium | single | 30 | 120 (120) | 2 | 63.8 s | 325 ms / 30 ms | — | — | — |" in text, (
        "a row of before the path was recorded is one interpreter's")
    assert "| chromium | separated | 30 | 120 (120) | 2 | 110.6 s |" in text
    assert "presses over 16 ms" in text
