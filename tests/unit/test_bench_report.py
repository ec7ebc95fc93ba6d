"""The benchmark's report: medians, ratios to the bare page, and the spread of per-run ratios."""
from bench import run

SITE_KEYS = ["python", "numpy", "grade", "grade_repeat", "bytes_cold", "bytes_repeat", "warm_run",
             "first_check_e7_3_after_10s", "first_check_m07_6_after_10s", "warm_suite_e7_3", "warm_suite_m07_6"]
BARE_KEYS = ["python", "numpy", "grade", "grade_repeat", "bytes_cold", "bytes_repeat", "warm_run"]


def a_run(site_grade: float, bare_grade: float) -> dict:
    site = {k: 10.0 for k in SITE_KEYS}
    bare = {k: 100.0 for k in BARE_KEYS}
    site["grade"], bare["grade"] = site_grade, bare_grade
    return {"site": site, "bare": bare}


def test_ratio_is_of_medians_and_spread_is_of_single_runs(tmp_path, capsys):
    runs = [a_run(1000, 4000), a_run(1200, 3000), a_run(1100, 5000)]
    run.report(runs, {"plain": [12.0, 14.0], "isolated": [7.0]}, 1500.0, tmp_path)
    row = next(line for line in (tmp_path / "latest.md").read_text().splitlines()
               if line.startswith("| navigation → ready to grade"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    # medians 1,100 and 4,000 ms; single runs 0.25, 0.4 and 0.22
    assert cells[1:] == ["1,100.0 ms", "4,000.0 ms", "0.275×", "0.22–0.4×"]
    stop = next(line for line in (tmp_path / "latest.md").read_text().splitlines() if "not isolated" in line)
    assert "13.0 ms" in stop and stop.rstrip().endswith("| — |")
    assert "ready to grade" in capsys.readouterr().out


def test_the_cpython_floor_is_reported_when_measured(tmp_path):
    runs = [a_run(1000, 4000)]
    run.report(runs, {"plain": [1.0], "isolated": [1.0]}, None, tmp_path, {"e7-3": (480.0, 340.0)})
    row = next(line for line in (tmp_path / "latest.md").read_text().splitlines() if "CPython" in line)
    assert "E7.3" in row and "480.0 ms" in row and "bodies 340.0 ms" in row
    run.report(runs, {"plain": [1.0], "isolated": [1.0]}, None, tmp_path)
    assert "CPython" not in (tmp_path / "latest.md").read_text()


def test_the_cpython_floor_is_the_reference_passing_its_own_suite(tmp_path):
    import pytest
    from tools import bundle
    site = tmp_path / "site"
    bundle.write(site / "assets" / "tl", run.REPO / "tests" / "fixtures" / "course" / "exercises")
    slug = next(p.stem for p in (site / "assets" / "tl" / "exercises").glob("t*.json"))
    total, bodies = run.cpython_suite(site, slug, runs=1)
    assert total > 0 and 0 < bodies <= total
    with pytest.raises(FileNotFoundError):
        run.cpython_suite(site, "no-such-exercise", runs=1)


def a_visit(ready: float, start: str | None, before: int) -> dict:
    return {"ready": ready, "start": start, "bytes_before_ready": before, "bytes_after_ready": 0, "repeat_ready": 1.0,
            "repeat_bytes": 0, "sent_twice": []}


def test_the_network_report_says_how_the_site_started_and_compares_medians():
    from bench import network
    rows = [{"bare": a_visit(10_000, None, 17_000_000), "site": a_visit(ready, start, 15_000_000),
             "check_straight_away": 7_000} for ready, start in
            ((5_000, "snapshot, compact"), (6_000, "cold"), (5_500, "snapshot, compact"))]
    text = network.report({"plain/20mbit": rows}, {"commit": "abc", "date": "today", "runs": 3})
    row = next(line for line in text.splitlines() if line.startswith("| plain/20mbit"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:4] == ["10.00 s", "5.50 s", "0.55×"]
    assert cells[4] == "17.0 / 15.0 MB (0.88×)"
    assert cells[9] == "cold ×1, snapshot, compact ×2"
