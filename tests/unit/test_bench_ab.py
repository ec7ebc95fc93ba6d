"""bench/ab.py's table: one row per mark, the median of each build's runs, and a dash where a build never made the
mark (the warm-up on a line where numpy's pack came first); and when a repeat visit may begin (the offline copy
complete: bench/network.py copy_complete)."""
from __future__ import annotations

from bench import ab
from bench.network import copy_complete


def test_medians_per_mark_and_a_dash_for_a_mark_never_made():
    runs = {"A": [{"restored": 100.0, "pytestReady": 300.0, "verdict": 900.0},
                  {"restored": 120.0, "pytestReady": 310.0, "verdict": 1000.0},
                  {"restored": 400.0, "pytestReady": 330.0, "verdict": 950.0}],
            "B": [{"restored": 90.0, "warmed": 150.0, "pytestReady": 280.0, "verdict": 800.0}]}
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ")[1:] for line in ab.table(runs).splitlines()[2:]}
    marks = ab.engines.worker_marks()
    assert rows[marks["restored"]] == ["120", "90 |"]
    assert rows[marks["warmed"]] == ["–", "150 |"]
    assert rows[marks["pytestReady"]] == ["310", "280 |"]
    assert rows["the verdict on the page"] == ["950", "800 |"]
    assert rows["the tests' own bodies"] == ["–", "– |"]


def test_the_ratio_row_only_when_the_bare_page_was_measured():
    plain = {"A": [{"verdict": 900.0}], "B": [{"verdict": 800.0}]}
    assert "bare page" not in ab.table(plain)
    paired = {"A": [{"verdict": 900.0, "ratio": 0.5}, {"verdict": 1000.0, "ratio": 0.7}],
              "B": [{"verdict": 800.0, "ratio": 0.4}, {"verdict": 700.0, "ratio": 0.2}]}
    assert ab.table(paired).splitlines()[-1] == "| the first verdict ÷ the bare page's ready, same pair | 0.60× | 0.30× |"


def test_a_repeat_visits_table_gives_its_ready_and_no_check():
    runs = {"A": [{"ready": 1400.0}, {"ready": 1500.0}], "B": [{"restored": 800.0, "ready": 1200.0}]}
    table = ab.table(runs)
    assert table.splitlines()[-1] == "| the repeat visit's ready on the page: stage pytest | 1,450 | 1,200 |"
    assert "the verdict on the page" not in table and "tests' own bodies" not in table


def test_the_offline_copy_is_complete_only_when_saved_and_no_fill_is_on_its_way():
    assert not copy_complete(None)  # no service worker controls the page yet
    assert not copy_complete({"pageSaved": True, "filling": True})
    assert not copy_complete({"pageSaved": False})
    assert copy_complete({"pageSaved": True})
    # a service worker from before issue 34 counts the whole site
    assert not copy_complete({"cached": 150, "total": 165})
    assert copy_complete({"cached": 165, "total": 165})
