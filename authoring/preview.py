"""Live preview for authors: build, serve, watch, rebuild, and show build errors in the browser.

    python -m authoring.preview [--port 8000] [--config mkdocs.yml]        (make preview [PORT=N])

- The site is built exactly as `make build` builds it (the same MkDocs hook, validation, front end, Pyodide,
  snapshot), into one of two folders under build/preview/, while the other keeps being served; the server
  switches once a build succeeds, so a page never disappears half-way through a rebuild.
- Watched: docs/, exercises/ (the config's exercise folder), mdwidgets/, checker/, web/src/, overrides/ and the
  config file, polled twice a second. A change to web/src/ re-bundles the front end first. Validation re-runs
  only for exercises whose content changed (the build's content-hash cache); everything else is reused.
- Each build runs in a fresh Python process, so edits to the widgets or the checker take effect at once.
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
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from authoring import serve

REPO = Path(__file__).resolve().parent.parent
WATCHED = ("docs", "exercises", "mdwidgets", "checker", "web/src", "overrides", "tools")
POLL = 0.5

RELOAD = """<script>/* tl live preview */(() => {
  let seen = null;
  const poll = async () => {
    try {
      const state = await (await fetch("/__preview/state", {cache: "no-store"})).json();
      if (seen !== null && state.version !== seen) location.reload();
      seen = state.version;
    } catch (e) { /* the server is restarting */ }
    setTimeout(poll, 700);
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

    def snapshot(self) -> dict:
        with self.lock:
            return {"version": self.version, "errors": list(self.errors), "building": self.building,
                    "ms": self.last_ms, "root": str(self.root) if self.root else None}


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
        self.paths = [REPO / p for p in WATCHED] + [course_root / "docs", course_root / "exercises", config]

    def rebuild(self, bundle: bool) -> None:
        target = self.slots[self.next]
        with self.state.lock:
            self.state.building = True
        started = time.perf_counter()
        ok, output = build(self.config, target, bundle)
        ms = round((time.perf_counter() - started) * 1000)
        with self.state.lock:
            self.state.building = False
            self.state.last_ms = ms
            self.state.version += 1
            if ok:
                self.state.root = target
                self.state.errors = []
                self.next = 1 - self.next
            else:
                self.state.errors = error_lines(output) or ["the build failed without a message"]
        if ok:
            print(f"preview: built in {ms / 1000:.1f} s", flush=True)
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
