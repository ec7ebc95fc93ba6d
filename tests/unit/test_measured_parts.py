"""bench/measured_parts.py: the network benchmark's bytes before ready, grouped into parts."""
from bench import measured_parts


def visit(**sent):
    return {"start": "snapshot, compact", "sent_before_ready": {f"/assets/pyodide/{k}": v for k, v in sent.items()}}


def test_parts_are_grouped_and_every_run_total_is_shown():
    results = {"rows": [{"bare": {"sent_before_ready": {"/bench/bare/": 5}},  # the bare page's: no start, not read
                         "site": visit(**{"pyodide.asm.wasm.zst": 2_000_000, "snapshot-1-of-3.lz4.zst": 1_000_000,
                                          "numpy-2.4.3-tl.pack.zst": 500_000})},
                        {"site": visit(**{"pyodide.asm.wasm.zst": 2_000_000, "snapshot-1-of-3.lz4.zst": 1_000_000,
                                          "numpy-2.4.3-tl.pack.zst": 500_000, "numpy-2.4.3-tl-rest.pack.zst": 900_000,
                                          "wheels.json": 10_000})}]}
    visits = measured_parts.site_visits(results)
    assert len(visits) == 2
    second = measured_parts.grouped(visits[1])
    assert second["numpy pack"] == 500_000 and second["numpy, the rest"] == 900_000
    assert second["the page, its scripts, styles and fonts, the judge, the wheels list"] == 10_000
    assert second["total"] == 4_410_000
    text = measured_parts.table([("after", visits)])
    assert "| each run's total | 3.50, 4.41 |" in text
    assert "| numpy, the rest | 0.45 |" in text  # the median of 0 and 0.9 MB
