"""Serve the built site on 127.0.0.1, like any static host would.

    python -m authoring.serve [--port 8000] [--isolate] [--dir site]

--isolate adds the two headers that make a page cross-origin isolated (COOP same-origin, COEP require-corp),
which lets Stop interrupt Python instead of restarting it. Without it the site still works (Stop restarts).
"""
from __future__ import annotations

import argparse
import functools
import http.server
import sys
import threading
from pathlib import Path

TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".json": "application/json", ".whl": "application/octet-stream", ".zip": "application/zip"}


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with correct MIME types, optional isolation headers, and a quiet log."""

    isolate = False
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def end_headers(self):
        if self.isolate:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        super().end_headers()

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


class Server(http.server.ThreadingHTTPServer):
    """A threading server that does not print a traceback when the browser drops a download it no longer needs
    (a replaced worker, a closed tab): that is not an error of the site."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def make_server(directory: Path, port: int = 0, isolate: bool = False,
                base: type = Handler) -> http.server.ThreadingHTTPServer:
    """A ready server (port 0 picks a free one); call serve_forever() or use start_in_thread().

    `base` lets a caller extend the handler (the benchmark counts the bytes sent).
    """
    handler = type("SiteHandler", (base,), {"isolate": isolate})
    return Server(("127.0.0.1", port), functools.partial(handler, directory=str(directory)))


def start_in_thread(directory: Path, isolate: bool = False,
                    base: type = Handler) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Start a server in a daemon thread; returns it and its base URL."""
    server = make_server(directory, 0, isolate, base)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--dir", default=str(Path(__file__).resolve().parent.parent / "site"))
    parser.add_argument("--isolate", action="store_true", help="send COOP/COEP headers (cross-origin isolation)")
    args = parser.parse_args()
    server = make_server(Path(args.dir), args.port, args.isolate)
    print(f"Serving {args.dir} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl+C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
