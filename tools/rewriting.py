"""Rewrite every exercise's hidden tests for pytest's assertions at build time, into the exercise bundles.

pytest rewrites a test file's `assert` statements before importing it. In the browser that is pure Python on
WebAssembly: ~0.3 s for a 170-line file, paid by the first check of each exercise (the judge keeps the result
for later checks, checker/judge.py `_memoise_rewriting`). The build does it instead, with pytest's own
`_rewrite_test` in the same Pyodide and the same pytest the browser runs (tools/rewriting.mjs), for the path the
browser's judge writes the file to (`judge.suite_root` under `bridge.WORKDIR`), and adds the marshalled code
objects to each bundle as `rewritten`. The judge takes them only when their tag names its own bytecode and
pytest (`judge.adopt_rewriting`); anything else is rewritten as before. tests/pyodide checks that what the build
made equals what pytest makes in the browser's runtime.

Results are cached under .cache/rewriting/, per file, by a hash of the file's path and text and of everything
the rewriting depends on (Pyodide's core and standard library, the judge's wheels and the judge, the script).
"""
from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from checker import bridge, judge
from tools import build_outputs, snapshot

REPO = Path(__file__).resolve().parent.parent
SCRIPT = Path(__file__).with_name("rewriting.mjs")
INDEX = "index.json"


class RewritingError(RuntimeError):
    """The rewriting could not be made; the message says why."""


def _environment(assets: Path, checker_zip: Path) -> str:
    """A hash of everything a rewritten code object depends on besides its file's path and text."""
    info = build_outputs.read_wheels_list(assets)
    h = hashlib.sha256()
    for path in [assets / "pyodide.asm.wasm", assets / "python_stdlib.zip", *(assets / w for w in info.wheels),
                 checker_zip, SCRIPT]:
        h.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()[:24]


def _paths(tests: dict[str, str]) -> dict[str, str]:
    """Test file name -> the path the browser's judge writes it to."""
    root = judge.suite_root(PurePosixPath(bridge.WORKDIR), tests) / "tests"
    return {name: str(root / name) for name in tests}


def _rewrite(assets: Path, checker_zip: Path, entries: list[dict]) -> dict:
    with tempfile.TemporaryDirectory(prefix="tl-rewriting-") as tmp:
        src, out = Path(tmp) / "in.json", Path(tmp) / "out.json"
        src.write_text(json.dumps(entries), encoding="utf-8")
        snapshot.run_node(SCRIPT, assets, checker_zip, src, out, error=RewritingError)
        return json.loads(out.read_text(encoding="utf-8"))


def build(assets: Path, bundles: Path, checker_zip: Path, cache: Path = REPO / ".cache" / "rewriting") -> int:
    """Add `rewritten` to every bundle under `bundles` (site/assets/tl/exercises); returns how many test files
    had to be rewritten afresh (the rest came from the cache)."""
    env = cache / _environment(assets, checker_zip)
    files = sorted(p for p in bundles.glob("*.json") if p.name != INDEX)
    data = {p: json.loads(p.read_text(encoding="utf-8")) for p in files}
    paths = {p: _paths(d["tests"]) for p, d in data.items()}
    wanted = {path: d["tests"][name] for p, d in data.items() for name, path in paths[p].items()}  # path -> source

    def key(path: str) -> Path:
        return env / (hashlib.sha256(f"{path}\0{wanted[path]}".encode()).hexdigest()[:32] + ".json")

    missing = [path for path in wanted if not key(path).is_file()]
    if missing:
        made = _rewrite(assets, checker_zip, [{"path": p, "source": wanted[p]} for p in missing])
        if cache.is_dir():
            for old in cache.iterdir():  # one environment at a time: the cache does not grow without bound
                if old != env:
                    shutil.rmtree(old) if old.is_dir() else old.unlink()
        env.mkdir(parents=True, exist_ok=True)
        for path in missing:
            key(path).write_text(json.dumps({"tag": made["tag"], "code": made["code"][path]}), encoding="utf-8")
    for p, d in data.items():
        entries = {name: json.loads(key(path).read_text(encoding="utf-8")) for name, path in paths[p].items()}
        tags = {e["tag"] for e in entries.values()}
        if len(tags) != 1:
            raise RewritingError(f"{p.name}: rewritten for more than one interpreter ({sorted(tags)})")
        d["rewritten"] = {"tag": tags.pop(), "tests": {name: e["code"] for name, e in entries.items()}}
        p.write_text(json.dumps(d, ensure_ascii=False), encoding="utf-8")
    return len(missing)
