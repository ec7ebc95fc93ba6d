"""The hostile-file table for `ol class` (issue 52): each file a red team would put in a class folder, what
`ol class` printed for it, whether the honest learners beside it were graded, its peak memory and its time.

    python -m bench.hostile_class [--checkout DIR] [--only NAME ...] [--out bench/results/hostile-class-latest.md]

For each file a fresh folder holds two honest learners (Ada, whose T01.1 pass is the reference's, and Bob, who
tried nothing) and that one file, and `ol class FOLDER --csv` runs on the fixture course (tests/fixtures/course)
with the real judge. Peak memory is measured two ways while it runs: the largest resident set of `ol class`'s
own process (its VmHWM, read until it exits), and the largest sum of the resident sets of it and every process
under it (the checks, the learners' processes), sampled every 20 ms. `--checkout` runs another checkout's `ol`
(an older commit unpacked with `git archive`, for a before-and-after); its own tests/fixtures/course is used.

The files: deep nesting, ten thousand digits, past the size limit, a million small objects, links to /dev/zero,
/dev/stdin and a file outside, a FIFO, a socket, a device (as root), a zip bomb (one entry, and one of 200 MB
declared), a zip with one name twice and entries leading out, a zip of a thousand and one files, a second file
naming Ada, "a small zip of large exports" (20 exports of 4.9 MB that pass every cap: the memory target is
400 MB plus twice the largest single export), the same as bombs (50 exports of one letter repeated), and two
claimed passes whose code goes past the learner's process limits (4 GB of memory; 2,000 files in its folder).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "results" / "hostile-class-latest.md"
MB = 1 << 20


def export(learner: str, data: dict | None = None, saved: str = "2026-12-01T10:00:00Z") -> dict:
    return {"format": "tinyllm-progress", "version": "v1", "saved": saved, "course": "tinyllm", "learner": learner,
            "data": data or {}}


def passed(code: str, at: int = 1796119200000) -> dict:
    return {"status": "passed", "tests": [], "code": code, "at": at}


def write(path: Path, doc: dict | str) -> None:
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")


def zipped(path: Path, entries, method=zipfile.ZIP_DEFLATED) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(path, "w", method) as zf:
            for name, data in entries:
                zf.writestr(name, data)


def large_export(n: int, size: int) -> str:
    """An export of at most `size` bytes that passes every cap: its claimed pass's code is text that deflates
    some 50 times over (a 16 kB block of letters, shifted, and 300 new ones each time), not a run of one byte."""
    rng = random.Random(n)
    block = "".join(rng.choice("abcdefghij klmnopqrstuvwxyz\n") for _ in range(16_384))
    parts, total, k = [], 0, 0
    while total < size:
        parts.append(block[k % 97:] + "".join(rng.choice("abcdefghij klmnopqrstuvwxyz\n") for _ in range(300)))
        total += len(parts[-1])
        k += 1
    code = "".join(parts)
    while True:
        text = json.dumps(export(f"Large {n}", {"result:t01-1": passed(code)}))
        if len(text.encode()) <= size:
            return text
        code = code[: len(code) - (len(text.encode()) - size) - 16]


def _bomb_declared(path: Path) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf, zf.open("bomb.json", "w") as f:
        chunk = b" " * MB
        for _ in range(200):
            f.write(chunk)


def _large_zip(path: Path) -> None:
    zipped(path, [(f"large/{n}.json", large_export(n, 4_900_000)) for n in range(20)])


def _mknod(folder: Path) -> None:
    os.mknod(folder / "zero.json", 0o600 | 0o020000, os.makedev(1, 5))


def _socket(folder: Path) -> None:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(folder / "sock.json"))
    sock.close()


HOG_MEMORY = "def total(xs):\n    import numpy\n    return float(numpy.ones(2 ** 29).sum() * 0 + sum(xs))\n\n" \
             "def clamp(x, lo, hi):\n    return min(max(x, lo), hi)\n"
FILL_DISK = "import os\nfor i in range(2000):\n    with open(f'f{i}', 'w') as f:\n        f.write('x' * 100_000)\n\n" \
            "def total(xs):\n    return float(sum(xs))\n\ndef clamp(x, lo, hi):\n    return min(max(x, lo), hi)\n"
BIG_ANSWER = "def total(xs):\n    return 'x' * 60_000_000\n\ndef clamp(x, lo, hi):\n    return 'y' * 60_000_000\n"
# name -> (the file's name in the folder, how to make it)
FILES = {
    "none (two honest learners)": ("", lambda f: None),
    "deeply nested JSON": ("deep.json", lambda f: write(f / "deep.json", '{"format": "tinyllm-progress", "data": '
                                                       + "[" * 1_000_000 + "]" * 1_000_000 + "}")),
    "ten thousand digits": ("digits.json", lambda f: write(f / "digits.json", json.dumps(export("Dee")).replace(
        '"v1"', "9" * 10_000))),
    "a count of ten thousand digits": ("count.json", lambda f: write(f / "count.json", json.dumps(export(
        "Cy", {"help:t1-2": {"hints": 7}})).replace('"hints": 7', '"hints": ' + "9" * 10_000))),
    "past the size limit (6 MB)": ("huge.json", lambda f: (f / "huge.json").write_bytes(b" " * 6_000_000)),
    "a million small objects (4.8 MB)": ("objects.json", lambda f: write(f / "objects.json",
                                                                          "[" + ",".join(["{}"] * 1_600_000) + "]")),
    "a link to /dev/zero": ("zero.json", lambda f: os.symlink("/dev/zero", f / "zero.json")),
    "a link to /dev/stdin": ("stdin.json", lambda f: os.symlink("/dev/stdin", f / "stdin.json")),
    "a link to a file outside": ("outside.json", lambda f: os.symlink(REPO / "README.md", f / "outside.json")),
    "a named pipe (FIFO)": ("pipe.json", lambda f: os.mkfifo(f / "pipe.json")),
    "a socket": ("sock.json", _socket),
    "a device (mknod, as root)": ("zero.json", _mknod),
    "a zip bomb (4.9 MB of spaces in 5 kB)": ("bomb.zip", lambda f: zipped(f / "bomb.zip", [
        ("bomb.json", b"{" + b" " * 4_900_000 + b"}")])),
    "a zip bomb (200 MB declared)": ("big-bomb.zip", lambda f: _bomb_declared(f / "big-bomb.zip")),
    "a zip with one name twice": ("dup.zip", lambda f: zipped(f / "dup.zip", [
        ("x.json", json.dumps(export("Xena"))), ("x.json", json.dumps(export("Xavier")))])),
    "a zip with entries leading out": ("escape.zip", lambda f: zipped(f / "escape.zip", [
        ("../../x.json", json.dumps(export("Xena"))), ("/etc/x.json", json.dumps(export("Xavier")))])),
    "a zip of 1,001 files": ("many.zip", lambda f: zipped(f / "many.zip", [
        (f"{n}.json", json.dumps(export(f"M{n}"))) for n in range(1001)], zipfile.ZIP_STORED)),
    "a second file naming Ada": ("mallory.json", lambda f: write(f / "mallory.json", export(
        "ADA", {"result:t01-1": passed("def total(xs):\n    return 6.0\n", at=1796299200000)}))),
    "a small zip of large exports (20 x 4.9 MB, 2.2 MB zipped)": ("large.zip", lambda f: _large_zip(f / "large.zip")),
    "a tiny zip of large exports (50 x 4.9 MB, 0.3 MB zipped)": ("tiny.zip", lambda f: zipped(f / "tiny.zip", [
        (f"{n}.json", json.dumps(export(f"Tiny {n}", {"result:t01-1": passed("x" * 4_899_000)}))) for n in range(50)])),
    "a pass whose code takes 4 GB": ("hog.json", lambda f: write(f / "hog.json", export(
        "Hog", {"result:t01-1": passed(HOG_MEMORY)}))),
    "a pass whose code writes 2,000 files": ("fill.json", lambda f: write(f / "fill.json", export(
        "Fill", {"result:t01-1": passed(FILL_DISK)}))),
    "a pass whose answer is 60 MB of text": ("answer.json", lambda f: write(f / "answer.json", export(
        "Answer", {"result:t01-1": passed(BIG_ANSWER)}))),
}


def honest(folder: Path, checkout: Path) -> None:
    reference = (checkout / "tests" / "fixtures" / "course" / "exercises" / "t01-1" / "reference.py").read_text()
    write(folder / "ada.json", export("Ada", {"result:t01-1": passed(reference)}))
    write(folder / "bob.json", export("Bob", {"help:t1-2": {"hints": 1}}))


def _tree(root: int) -> list[int]:
    """`root` and every process under it, from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            parents.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += parents.get(pid, [])
    return found


def _status(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


class Watch(threading.Thread):
    """The peaks of one run: `ol class`'s own VmHWM, and the largest sum of VmRSS over its process tree."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.own, self.tree, self.done = pid, 0, 0, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.02):
            self.own = max(self.own, _status(self.pid, "VmHWM"))
            self.tree = max(self.tree, sum(_status(p, "VmRSS") for p in _tree(self.pid)))


def said_for(name: str, stderr: str, stdout: str) -> str:
    """What ol class printed about the file: its own lines (refused, conflict, a note), and the lines of the
    claimed passes of learners other than Ada and Bob that did not hold (two, and how many in all)."""
    lines = _joined(stderr, "  ") + _joined(stdout, "      ")
    mine = [line for line in lines if name and line.split(" ", 1)[0] in ("refused", "conflict", "note:")
            and name in line]
    held = [line for line in lines if "did not hold" in line and not line.startswith(("Ada ", "Bob "))]
    said = (mine[:2] + [f"... {len(mine)} such lines"] if len(mine) > 3 else mine) + \
        (held[:2] + [f"... {len(held)} such lines"] if len(held) > 2 else held)
    return "; ".join(said) or "(nothing)"


def _joined(text: str, hang: str) -> list[str]:
    """`text`'s lines, each wrapped line joined again (ol's say() indents the rest of a line by `hang`)."""
    lines: list[str] = []
    for line in text.splitlines():
        if lines and line.startswith(hang) and line.strip():
            lines[-1] += " " + line.strip()
        else:
            lines.append(" ".join(line.split()))
    return lines


def run_one(label: str, name: str, make, checkout: Path, timeout: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="tl-hostile-") as tmp:
        folder = Path(tmp) / "class"
        folder.mkdir()
        honest(folder, checkout)
        try:
            make(folder)
        except (PermissionError, OSError) as exc:
            return {"file": label, "said": f"(not made here: {exc.strerror or exc})", "graded": "", "exit": "",
                    "own": 0, "tree": 0, "seconds": 0.0}
        out = Path(tmp) / "class.csv"
        env = {**os.environ, "TL_EXERCISES": str(checkout / "tests" / "fixtures" / "course" / "exercises"),
               "PYTHONPATH": str(checkout), "COLUMNS": "200"}
        start = time.monotonic()
        keep_open, stdin = os.pipe()[::-1]  # a stdin that never ends, as a terminal's (a link to it must not wait)
        proc = subprocess.Popen([sys.executable, "-m", "ol", "class", str(folder), "--csv", str(out), "--jobs", "2"],
                                cwd=tmp, env=env, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        os.close(stdin)
        watch = Watch(proc.pid)
        watch.start()
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for pid in reversed(_tree(proc.pid)):  # ol class and what it started, by their ids
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            stdout, stderr = proc.communicate()
            stderr += f"\n(still running after {timeout:.0f} s: stopped)"
        finally:
            os.close(keep_open)
        seconds = time.monotonic() - start
        watch.done.set()
        watch.join()
        return {"file": label, "said": said_for(name, stderr, stdout) if proc.returncode in (0, 1) else
                " ".join(stderr.split())[-240:],
                "graded": graded(out), "exit": str(proc.returncode), "own": watch.own, "tree": watch.tree,
                "seconds": seconds}


def graded(out: Path) -> str:
    """Whether the honest learners were graded: Ada's T01.1 passed and Bob's row is there."""
    if not out.exists():
        return "no CSV"
    rows = list(csv.DictReader(io.StringIO(out.read_bytes().decode("utf-8-sig"), newline="")))
    ada = [r for r in rows if r["learner"] == "Ada"]
    ok = ada and ada[0]["T01.1 verdict"] == "passed" and any(r["learner"] == "Bob" for r in rows)
    return "yes" if ok else "NO"


def table(rows: list[dict]) -> str:
    lines = ["| file | what ol class printed for it | honest learners graded | exit | peak RSS, ol class (MB) | "
             "peak RSS, all its processes (MB) | time (s) |", "|---|---|---|---:|---:|---:|---:|"]
    for r in rows:
        said = r["said"].replace("|", "\\|")
        lines.append(f"| {r['file']} | {said} | {r['graded']} | {r['exit']} | {r['own'] / MB:.0f} | "
                     f"{r['tree'] / MB:.0f} | {r['seconds']:.1f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", default=str(REPO), help="the checkout whose ol runs (default: this one)")
    parser.add_argument("--only", action="append", help="only the files whose label contains this")
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--timeout", type=float, default=600, help="seconds before a run is stopped")
    args = parser.parse_args()
    checkout = Path(args.checkout).resolve()
    rows = []
    for label, (name, make) in FILES.items():
        if args.only and not any(o in label for o in args.only):
            continue
        rows.append(run_one(label, name, make, checkout, args.timeout))
        print(f"{label}: {rows[-1]['seconds']:.1f} s", file=sys.stderr, flush=True)
    text = table(rows)
    print(text)
    Path(args.out).write_text(f"`python -m bench.hostile_class` on {checkout.name}, {time.strftime('%Y-%m-%d')}\n\n"
                              f"{text}\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
