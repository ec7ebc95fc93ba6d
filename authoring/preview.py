"""Live preview for authors: build, serve, watch, rebuild, and show build errors in the browser.

    python -m authoring.preview [--port 8000] [--config mkdocs.yml]        (make preview [PORT=N])

- The site is built exactly as `make build` builds it (the same MkDocs hook, validation, front end, Pyodide,
  snapshot), into one of two folders under build/preview/, while the other keeps being served; the server
  switches once a build succeeds, so a page never disappears half-way through a rebuild.
- Watched: docs/, exercises/ (the config's exercise folder), mdwidgets/, checker/, web/src/, overrides/ and the
  config file, polled four times a second. A change to web/src/ re-bundles the front end first. Validation re-runs
  only for exercises whose content changed (the build's content-hash cache); everything else is reused.
- Each build runs in a fresh Python process, so edits to the widgets or the checker take effect at once.
- An edit of pages alone takes the page path: a dirty build (`mkdocs build --dirty`) into the site being served,
  which converts the edited pages only and renders their maths (PAGES_ONLY tells the build's hook), in about a
  second however large the course. Another page's navigation shows a changed title after the next full build.
- An edit of exercise folders alone first runs validation's gate on them (`validate --gate`: reference,
  starter, each mutant's own test, prompts), whose failure shows in the page at once; then the full build, which
  takes their fingerprints and bundles.
- When a build fails, every HTML request gets a page listing its errors, one `file:line: message` each, within a
  second of the build ending, instead of a server that hangs; fixing the file rebuilds and the page comes back.
- Pages reload themselves after each build (a tiny script the server adds to HTML). The service worker is
  replaced by one that unregisters itself, so edits always show; the server sends the cross-origin isolation
  headers instead, so Stop still interrupts Python in place.
"""
from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from authoring import serve

REPO = Path(__file__).resolve().parent.parent
# The page path: after an edit of pages alone, a dirty build (`mkdocs build --dirty`) into the site being served,
# with this set in its environment, so that the build's hook (tools/mkdocs_hooks.py) skips what an edit of pages
# cannot change (validation, the assets, the offline copy): only the edited pages are converted.
PAGES_ONLY = "TL_PREVIEW_PAGES_ONLY"
DIRTY_NOTICES = ("A 'dirty' build is being performed", "The directory contains stale files")
WATCHED = ("docs", "exercises", "mdwidgets", "checker", "web/src", "overrides", "tools")
POLL = 0.25  # seconds between two looks at the watched files (a few thousand stat calls at N = 100)

RELOAD = """<script>/* tl live preview */(() => {
  let seen = null;
  const poll = async () => {
    try {
      const state = await (await fetch("/__preview/state", {cache: "no-store"})).json();
      if (seen !== null && state.version !== seen) location.reload();
      seen = state.version;
    } catch (e) { /* the server is restarting */ }
    setTimeout(poll, 400);
  };
  poll();
})();</script>"""

UNREGISTER = """// tl live preview: no offline cache, so every edit shows at once.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil((async () => {
  for (const key of await caches.keys()) await caches.delete(key);
  await self.registration.unregister();
})()));
"""


def error_lines(output: str) -> list[str]:
    """The one-line mistakes in a build's output (MkDocs' ERROR/WARNING lines and a PluginError's lines)."""
    lines, in_plugin = [], False
    for raw in output.splitlines():
        line = raw.rstrip()
        for prefix in ("ERROR   -  ", "WARNING -  "):
            if line.startswith(prefix):
                lines.append(line[len(prefix):])
                in_plugin = "validation failed" in line
                break
        else:
            if line.startswith("Error: "):
                lines.append(line[len("Error: "):])
                in_plugin = "validation failed" in line
            elif in_plugin and line and not line.startswith(("Aborted", "INFO")):
                lines.append(line)
            else:
                in_plugin = False
    return [x for x in lines if x and not x.endswith("validation failed:")] or (
        [] if not output.strip() else [output.strip().splitlines()[-1]])


class State:
    """What the server shows: the folder of the last good build, or the last build's errors."""

    def __init__(self):
        self.lock = threading.Lock()
        self.root: Path | None = None
        self.errors: list[str] = []
        self.version = 0
        self.building = False
        self.last_ms = 0
        self.path = ""  # "full" or "pages": how the last build was made
        self.gate: dict = {}  # the last gate's exercises, verdict and time

    def snapshot(self) -> dict:
        with self.lock:
            return {"version": self.version, "errors": list(self.errors), "building": self.building,
                    "ms": self.last_ms, "root": str(self.root) if self.root else None, "path": self.path,
                    "gate": dict(self.gate)}


def make_handler(state: State):
    class Handler(serve.Handler):
        isolate = True

        def translate_path(self, path):
            root = state.root or (REPO / "build" / "preview")
            self.directory = str(root)
            return super().translate_path(path)

        def do_GET(self):  # noqa: N802 - the base class's name
            path = self.path.split("?", 1)[0]
            info = state.snapshot()
            if path == "/__preview/state":
                return self._send(json.dumps(info).encode(), "application/json")
            if path == "/sw.js":
                return self._send(UNREGISTER.encode(), "text/javascript")
            wants_page = path.endswith("/") or path.endswith(".html")
            if info["errors"] and wants_page:
                return self._send(error_page(info).encode(), "text/html; charset=utf-8")
            if info["root"] is None and wants_page:
                return self._send(waiting_page().encode(), "text/html; charset=utf-8")
            if wants_page:
                target = Path(self.translate_path(path))
                if target.is_dir():
                    target = target / "index.html"
                if target.is_file():
                    body = target.read_text(encoding="utf-8")
                    body = body.replace("</body>", RELOAD + "</body>", 1)
                    return self._send(body.encode(), "text/html; charset=utf-8")
            return super().do_GET()

        def _send(self, body: bytes, kind: str):
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

    return Handler


def error_page(info: dict) -> str:
    items = "\n".join(f"<li><code>{html.escape(line)}</code></li>" for line in info["errors"])
    return (f"<!doctype html><html lang=en><meta charset=utf-8><title>Build failed</title>"
            f"<body style='font:16px/1.5 system-ui;margin:2rem;max-width:70rem'>"
            f"<h1>The build failed</h1><p>Fix these and save; this page reloads when the build succeeds.</p>"
            f"<ul class=tl-preview-errors>{items}</ul>{RELOAD}</body></html>")


def waiting_page() -> str:
    return ("<!doctype html><html lang=en><meta charset=utf-8><title>Building…</title>"
            f"<body style='font:16px/1.5 system-ui;margin:2rem'><p>Building the site…</p>{RELOAD}</body></html>")


def fingerprint(paths: list[Path]) -> dict[str, float]:
    """Modification times of every file under the watched folders."""
    seen = {}
    for base in paths:
        if base.is_file():
            seen[str(base)] = base.stat().st_mtime
            continue
        for folder, dirs, files in os.walk(base):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "node_modules") and not d.startswith(".")]
            for name in files:
                path = os.path.join(folder, name)
                try:
                    seen[path] = os.stat(path).st_mtime
                except FileNotFoundError:
                    pass
    return seen


def build_pages(config: Path, target: Path) -> tuple[bool, str]:
    """The page path: a dirty build into `target`, the site being served, in a fresh process. Without --strict,
    which MkDocs' own notice of a dirty build would trip: any other warning fails it as --strict would."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_MKDOCS_2_WARNING": "1", PAGES_ONLY: "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--dirty", "--no-strict", "-f", str(config), "-d",
                           str(target)],
                          capture_output=True, text=True, cwd=REPO, env=env)
    output = "\n".join(line for line in (proc.stdout + proc.stderr).splitlines()
                       if not any(notice in line for notice in DIRTY_NOTICES))
    return proc.returncode == 0 and not error_lines_only(output), output


def error_lines_only(output: str) -> list[str]:
    """The ERROR and WARNING lines of a build's output (a successful build may print INFO lines only)."""
    return [line for line in output.splitlines() if line.startswith(("ERROR", "WARNING"))]


def gate(config: Path, slugs: list[str]) -> tuple[bool, str]:
    """The exercise path: validation's gate (authoring/validate.py --gate) on the edited exercises, in a fresh
    process, before the full build that takes their fingerprints."""
    root = config.resolve().parent / "exercises"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "authoring", "validate", *slugs, "--gate", "--root", str(root)],
                          capture_output=True, text=True, cwd=REPO, env=env)
    return proc.returncode == 0, proc.stdout + proc.stderr


def build(config: Path, target: Path, bundle: bool) -> tuple[bool, str]:
    """One build into `target`, in a fresh process. Returns (ok, output)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_MKDOCS_2_WARNING": "1"}
    output = ""
    if bundle:
        proc = subprocess.run(["node", str(REPO / "web" / "build.mjs")], capture_output=True, text=True, cwd=REPO)
        output += proc.stdout + proc.stderr
        if proc.returncode != 0:
            return False, output
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d",
                           str(target)], capture_output=True, text=True, cwd=REPO, env=env)
    return proc.returncode == 0, output + proc.stdout + proc.stderr


class Watcher:
    """Rebuilds on every change, alternating between two build folders."""

    def __init__(self, config: Path, state: State, out: Path):
        self.config, self.state, self.out = config, state, out
        self.slots = [out / "a", out / "b"]
        self.next = 0
        course_root = config.resolve().parent
        self.course = course_root
        self.paths = [REPO / p for p in WATCHED] + [course_root / "docs", course_root / "exercises", config]

    def rebuild(self, bundle: bool) -> None:
        target = self.slots[self.next]
        self._step("full", lambda: build(self.config, target, bundle), target, switch=True)

    def rebuild_pages(self) -> None:
        """The page path (`build_pages`) into the site being served; a full build when none is served yet."""
        if self.state.root is None:
            return self.rebuild(bundle=False)
        self._step("pages", lambda: build_pages(self.config, self.state.root), self.state.root, switch=False)

    def gate(self, slugs: list[str]) -> bool:
        """The exercise path's first step: the gate's verdict, shown at once when it fails."""
        with self.state.lock:
            self.state.building = True
        started = time.perf_counter()
        ok, output = gate(self.config, slugs)
        ms = round((time.perf_counter() - started) * 1000)
        with self.state.lock:
            self.state.gate = {"exercises": slugs, "ok": ok, "ms": ms}
            if not ok:
                self.state.building = False
                self.state.version += 1
                lines = [line.strip() for line in output.splitlines() if line.strip()]
                located = [line for line in lines if re.match(r"^[^\s:]+:\d+: ", line)]
                self.state.errors = (located or lines)[:50]
        print(f"preview: gate of {', '.join(slugs)} {'ok' if ok else 'FAILED'} in {ms / 1000:.1f} s", flush=True)
        return ok

    def _step(self, path: str, run, target: Path, switch: bool) -> None:
        with self.state.lock:
            self.state.building = True
        started = time.perf_counter()
        ok, output = run()
        ms = round((time.perf_counter() - started) * 1000)
        with self.state.lock:
            self.state.building = False
            self.state.last_ms = ms
            self.state.path = path
            self.state.version += 1
            if ok:
                self.state.root = target
                self.state.errors = []
                if switch:
                    self.next = 1 - self.next
            else:
                self.state.errors = error_lines(output) or ["the build failed without a message"]
        if ok:
            print(f"preview: built ({path}) in {ms / 1000:.1f} s", flush=True)
        else:
            print("preview: the build failed:\n  " + "\n  ".join(self.state.errors), flush=True)

    def run(self, stop: threading.Event) -> None:
        seen = fingerprint(self.paths)
        self.rebuild(bundle=True)
        while not stop.wait(POLL):
            now = fingerprint(self.paths)
            if now == seen:
                continue
            changed = {p for p in set(now) | set(seen) if now.get(p) != seen.get(p)}
            seen = now
            time.sleep(0.1)  # an editor that saves in several writes
            seen = fingerprint(self.paths)
            bundle = any(f"{os.sep}web{os.sep}src{os.sep}" in p for p in changed)
            names = sorted(os.path.relpath(p, REPO) for p in changed)
            print(f"preview: changed {', '.join(names[:3])}{' …' if len(names) > 3 else ''}", flush=True)
            docs, exercises = self.course / "docs", self.course / "exercises"
            if all(Path(p).is_relative_to(docs) and p.endswith(".md") for p in changed) and not self.state.errors:
                self.rebuild_pages()
                continue
            slugs = sorted({Path(p).relative_to(exercises).parts[0] for p in changed
                            if Path(p).is_relative_to(exercises) and len(Path(p).relative_to(exercises).parts) > 1})
            edited_exercises_only = slugs and all(Path(p).is_relative_to(exercises) for p in changed) \
                and all((exercises / s / "exercise.toml").is_file() for s in slugs)
            if edited_exercises_only and not self.gate(slugs):
                continue
            self.rebuild(bundle)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m authoring.preview", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--config", type=Path, default=REPO / "mkdocs.yml")
    parser.add_argument("--out", type=Path, default=REPO / "build" / "preview")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    state = State()
    server = serve.Server(("127.0.0.1", args.port), make_handler(state))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"preview: serving http://127.0.0.1:{server.server_address[1]}/ (Ctrl+C stops)", flush=True)
    stop = threading.Event()
    try:
        Watcher(args.config, state, args.out).run(stop)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        shutil.rmtree(args.out / "tmp", ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
