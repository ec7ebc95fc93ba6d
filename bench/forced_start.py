"""Ready to grade on one profile with the start forced, alternating LZ4 (`snapshot`) and zstd (`compact`):
does the compact copy cost a line anything?  python -m bench.forced_start [localhost|20mbit|100mbit] [RUNS]"""
import statistics
import sys

from playwright.sync_api import sync_playwright
from bench import network as N
from authoring.serve import start_in_thread


def main() -> None:
    profile = sys.argv[1] if len(sys.argv) > 1 else "localhost"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    res = {"snapshot": [], "compact": []}
    with sync_playwright() as play:
        log = N.Log()
        server, url = start_in_thread(N.SITE, base=N.handler(log, False))
        try:
            for i in range(runs):
                for start in ("snapshot", "compact"):
                    context, page = N.fresh_browser(play)
                    try:
                        context.add_init_script(N.STAGE_WATCH)
                        context.add_init_script(f"try {{ localStorage.setItem('tl-start', '{start}'); }} catch (e) {{}}")
                        N.throttle(context, page, N.PROFILES[profile])
                        log.take()
                        page.goto(url + N.LESSON, wait_until="commit")
                        ready = N._ready_ms(page, False)
                        tl = page.evaluate("window.tinyllm.python.timeline")
                        sent = sum(e.bytes for e in log.take())
                        res[start].append(ready)
                        print(start, round(ready), "compact" if tl.get("compact") else "lz4", f"{sent/1e6:.2f} MB until read", flush=True)
                    finally:
                        context.close()
        finally:
            server.shutdown()
    for k, v in res.items():
        print(k, "median", round(statistics.median(v)), [round(x) for x in v])


if __name__ == "__main__":
    main()
