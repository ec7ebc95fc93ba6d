"""Three browser engines behind one small interface, for the learner journeys that can differ by engine
(test_engines.py). Each drives a real browser from Debian, headless, with a profile of its own:

- chromium: Debian's `chromium`, through Playwright (as the rest of the end-to-end suite);
- firefox: Debian's `firefox-esr`, through WebDriver BiDi, which Firefox speaks itself (`--remote-debugging-port`):
  no geckodriver, which nothing here could install;
- webkit: WebKitGTK's `MiniBrowser --automation`, through `WebKitWebDriver` (Debian's webkit2gtk-driver) and
  classic WebDriver over HTTP, on a virtual display (Xvfb). WebKitGTK is Safari's engine, as every browser on an
  iPhone; what it cannot show of iOS Safari is in the offline notes (docs/offline.md).

The journeys only call `open`, `js`, `wait`, `reload` and `errors`: pages are driven as their scripts would drive
them (the code cell's `tlCell` handle, `click()` on buttons), so that a journey means the same in every engine.
`js(fn, *args)` calls a JavaScript function expression with JSON arguments, awaits it, and returns its result
through JSON. `errors()` is what the page threw: Playwright's page errors and console errors; Firefox's log
entries of level error; for WebKit, whose classic WebDriver has no log, what the page's own early recorder
(`window.tlErrors`, overrides/main.html) kept.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ENGINES = ("chromium", "firefox", "webkit")
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
# Firefox must not try to reach the internet (this machine's network is closed; a refused connection is noise).
FIREFOX_PREFS = {
    "app.update.enabled": False, "app.update.auto": False, "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False, "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False, "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False, "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False, "browser.safebrowsing.downloads.enabled": False,
    "extensions.update.enabled": False, "browser.startup.homepage_override.mstone": "ignore",
    "browser.newtabpage.enabled": False, "browser.startup.page": 0, "network.dns.disablePrefetch": True,
    "network.prefetch-next": False, "browser.search.update": False, "services.settings.server": "http://127.0.0.1:9/",
    "remote.prefs.recommended": True,
}


# Firefox lays out MathML as the HTML parser delivers it and, now and then, reports an element whose children have
# not all arrived yet ("Invalid markup: Incorrect number of children for <munderover/> tag." for KaTeX's valid
# MathML of a sum, seen in about one page load in ten): its layout engine's remark, not an error of the page.
LAYOUT_NOISE = ("Invalid markup: Incorrect number of children for <",)


class EngineError(RuntimeError):
    """The browser or its driver refused a command; the message says what it was asked."""


def _wrapped(fn: str) -> str:
    """An async function of one JSON string that calls `fn` with the arguments it holds and returns its result as
    JSON (null for undefined), or {"__error": message} when it threw."""
    return (f"async (json) => {{ try {{ const value = await ({fn})(...JSON.parse(json));"
            f" return JSON.stringify(value === undefined ? null : value); }}"
            f" catch (e) {{ return JSON.stringify({{ __error: String(e && e.stack || e) }}); }} }}")


def _result(text: str):
    value = json.loads(text)
    if isinstance(value, dict) and "__error" in value:
        raise EngineError(f"the page's script threw: {value['__error']}")
    return value


class Engine:
    """One browser with one tab. Subclasses implement `_call`, `open`, `reload`, `errors` and `close`."""

    name = ""
    seen = 0  # errors already accounted for by a journey's check (test_engines.clean); `wait` fails on any newer

    def js(self, fn: str, *args):
        """Call the JavaScript function expression `fn` in the page with `args` (JSON), await it; its result."""
        return _result(self._call(_wrapped(fn), json.dumps(list(args))))

    def wait(self, fn: str, *args, timeout: float = 90, what: str = ""):
        """Poll `fn(*args)` until it is truthy (a page that is loading counts as not yet); its value. A page that
        throws meanwhile fails at once (no journey expects an error), instead of after the whole timeout."""
        deadline = time.monotonic() + timeout
        last = None
        before = self.seen
        polls = 0
        while time.monotonic() < deadline:
            try:
                last = self.js(fn, *args)
                if last not in (None, False, 0, ""):  # an element comes back as {}: found
                    return last
                polls += 1
                if polls % 10 == 0 and len(thrown := self.errors()) > before:
                    raise AssertionError(f"{self.name}: the page threw while waiting for {what or fn}: "
                                         f"{thrown[before:]}")
            except EngineError as exc:  # a navigation in progress destroys the context the script ran in
                last = exc
            time.sleep(0.1)
        raise TimeoutError(f"{self.name}: waited {timeout:g} s for {what or fn} (last: {last!r})")

    def _call(self, declaration: str, args_json: str) -> str:
        raise NotImplementedError


class Chromium(Engine):
    name = "chromium"

    def __init__(self, playwright, executable: str, args: list[str]):
        self.browser = playwright.chromium.launch(executable_path=executable, args=args)
        self.context = self.browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self._errors: list[str] = []
        self.page.on("pageerror", lambda e: self._errors.append(str(e)))
        self.page.on("console", lambda m: self._errors.append(m.text) if m.type == "error" else None)

    def _call(self, declaration: str, args_json: str) -> str:
        return self.page.evaluate(f"({declaration})({json.dumps(args_json)})")

    def open(self, url: str) -> None:
        self.page.goto(url)

    def reload(self) -> None:
        self.page.reload()

    def narrow(self, width: int, height: int) -> None:
        self.page.set_viewport_size({"width": width, "height": height})

    def errors(self) -> list[str]:
        return list(self._errors)

    def close(self) -> None:
        self.context.close()
        self.browser.close()


class Firefox(Engine):
    """Firefox over WebDriver BiDi: one WebSocket, commands answered by id, events kept as they pass."""

    name = "firefox"

    def __init__(self, executable: str = "firefox-esr"):
        from websockets.sync.client import connect

        self.profile = tempfile.mkdtemp(prefix="tl-firefox-")
        Path(self.profile, "user.js").write_text("".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n"
                                                          for k, v in FIREFOX_PREFS.items()))
        self.proc = subprocess.Popen([executable, "--headless", "--no-remote", "--remote-debugging-port=0",
                                      "--profile", self.profile], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, start_new_session=True)
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line and self.proc.poll() is not None:
                break
            found = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
            url = found.group(1) if found else None
        if url is None:
            self.close()
            raise EngineError("firefox-esr did not start its WebDriver BiDi server")
        self.ws = connect(url + "/session", max_size=None, open_timeout=30, legacy=True)
        self._id = 0
        self._errors: list[str] = []
        self.send("session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": False}}})
        self.send("session.subscribe", {"events": ["log.entryAdded"]})
        self.context = self.send("browsingContext.getTree", {})["contexts"][0]["context"]

    def send(self, method: str, params: dict, timeout: float = 120) -> dict:
        self._id += 1
        ident = self._id
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            msg = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if msg.get("method") == "log.entryAdded":
                entry = msg["params"]
                if entry.get("level") == "error" and not str(entry.get("text", "")).startswith(LAYOUT_NOISE):
                    self._errors.append(entry.get("text") or json.dumps(entry)[:300])
                continue
            if msg.get("id") != ident:
                continue
            if msg.get("type") == "error":
                raise EngineError(f"firefox {method}: {msg.get('error')}: {msg.get('message')}")
            return msg["result"]

    def _call(self, declaration: str, args_json: str) -> str:
        got = self.send("script.callFunction", {
            "functionDeclaration": declaration, "arguments": [{"type": "string", "value": args_json}],
            "target": {"context": self.context}, "awaitPromise": True, "resultOwnership": "none"})
        if got.get("type") == "exception":
            raise EngineError(f"firefox: {got['exceptionDetails'].get('text')}")
        return got["result"]["value"]

    def open(self, url: str) -> None:
        self.send("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"})

    def reload(self) -> None:
        self.send("browsingContext.reload", {"context": self.context, "wait": "complete"})

    def narrow(self, width: int, height: int) -> None:
        self.send("browsingContext.setViewport", {"context": self.context,
                                                  "viewport": {"width": width, "height": height}})

    def errors(self) -> list[str]:
        self.js("() => new Promise((r) => setTimeout(r, 0))")  # let pending log events arrive
        return list(self._errors)

    def close(self) -> None:
        try:
            self.send("session.end", {}, timeout=10)
        except Exception:  # noqa: BLE001 - closing a browser that may already be gone
            pass
        _stop(self.proc)
        shutil.rmtree(self.profile, ignore_errors=True)


class WebKit(Engine):
    """WebKitGTK over classic WebDriver (HTTP), MiniBrowser on a display of its own (Xvfb)."""

    name = "webkit"

    def __init__(self, driver: str = "WebKitWebDriver", binary: str = MINIBROWSER):
        self.display = None
        # Safari gives a cross-origin isolated page SharedArrayBuffer (since 15.2), which Stop's interrupt uses;
        # WebKitGTK keeps it behind this JavaScriptCore option.
        env = {**os.environ, "JSC_useSharedArrayBuffer": "1"}
        if not env.get("DISPLAY"):
            self.display, env["DISPLAY"] = _xvfb()
        port = _free_port()
        self.driver = subprocess.Popen([driver, f"--port={port}"], env=env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True)
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(self.base + "/status", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    self.close()
                    raise EngineError("WebKitWebDriver did not start") from None
                time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {"webkitgtk:browserOptions": {"binary": binary,
                                                                             "args": ["--automation"]}}}}
        self.session = self._request("POST", "/session", caps)["sessionId"]
        self._request("POST", f"/session/{self.session}/timeouts", {"script": 120_000, "pageLoad": 120_000})

    def _request(self, method: str, path: str, body: dict | None = None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=180) as response:
                return json.loads(response.read() or b"{}").get("value")
        except urllib.error.HTTPError as exc:
            problem = json.loads(exc.read() or b"{}").get("value", {})
            raise EngineError(f"webkit {method} {path}: {problem.get('error')}: {problem.get('message')}") from None

    def _call(self, declaration: str, args_json: str) -> str:
        script = (f"const done = arguments[arguments.length - 1];"
                  f" ({declaration})(arguments[0]).then(done, (e) => done(JSON.stringify({{__error: String(e)}})));")
        return self._request("POST", f"/session/{self.session}/execute/async", {"script": script, "args": [args_json]})

    def open(self, url: str) -> None:
        self.framed = False
        self._request("POST", f"/session/{self.session}/url", {"url": url})

    def reload(self) -> None:
        self._request("POST", f"/session/{self.session}/refresh", {})

    framed = False  # the page is in a frame of its own (narrow), where every script of the journey runs

    def js(self, fn: str, *args):
        if self.framed:
            fn = f"(...args) => window.frames[0].eval({json.dumps('(' + fn + ')')})(...args)"
        return super().js(fn, *args)

    def narrow(self, width: int, height: int) -> None:
        """The page as a screen `width` × `height` shows it. MiniBrowser's window is never narrower than its
        toolbar (447 px), so the page is opened again in a frame of that size, on a page of its own origin, and the
        journey's scripts run in the frame from then on (until the next `open`): its media queries, its layout and
        its viewport are the frame's."""
        url = self.js("() => location.href")
        self.js("(src, w, h) => new Promise((done) => { document.body.replaceChildren();"
                " document.body.style.margin = '0'; const frame = document.createElement('iframe');"
                " frame.style.cssText = `width: ${w}px; height: ${h}px; border: 0`; frame.onload = () => done(true);"
                " frame.src = src; document.body.append(frame); })", url, width, height)
        self.framed = True

    def errors(self) -> list[str]:
        return self.js("() => (window.tlErrors || []).slice()")

    def close(self) -> None:
        try:
            if getattr(self, "session", None):
                self._request("DELETE", f"/session/{self.session}")
        except Exception:  # noqa: BLE001 - closing a browser that may already be gone
            pass
        _stop(self.driver)
        if self.display is not None:
            _stop(self.display)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _xvfb() -> tuple[subprocess.Popen, str]:
    """A virtual display for MiniBrowser: Xvfb on the first free display number."""
    for number in range(90, 130):
        if Path(f"/tmp/.X{number}-lock").exists():
            continue
        proc = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1280x900x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            if Path(f"/tmp/.X11-unix/X{number}").exists():
                return proc, f":{number}"
            time.sleep(0.05)
        _stop(proc)
    raise EngineError("no virtual display could be started (is Xvfb installed? make setup-engines)")


def _stop(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
