"""The report page in a real headless Chromium: it shows its plots and tables, logs no error, fetches nothing.

Chromium (the OS package: ``apt-get install -y chromium``) runs with a fresh profile and is driven
over the Chrome DevTools Protocol (a websocket on 127.0.0.1). Set ``REPORT_SCREENSHOT=path.png`` to
keep a 1280x2000 screenshot of the page. Run with::

    pytest -m browser tests/browser
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from enterprise_envs.report import run_report
from enterprise_envs.runner import run

pytestmark = pytest.mark.browser

websockets_client = pytest.importorskip("websockets.sync.client", reason="needs the websockets package")

#: The flags every launch uses: no sandbox (containers), no GPU, and nothing Chromium itself
#: would fetch (updates, sync, field trials), so any request seen comes from the page.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,2000",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)
TIMEOUT = 20.0


def chromium_binary() -> str | None:
    """The Chromium of the OS packages, if installed."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


class DevTools:
    """A minimal CDP client: commands on one page session, the events it sent kept in order."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    def call(
        self, method: str, params: dict[str, Any] | None = None, browser: bool = False
    ) -> dict[str, Any]:
        """Send a command (to the page session unless ``browser``) and return its result."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session and not browser:
            message["sessionId"] = self.session
        self.socket.send(json.dumps(message))
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def wait_for(self, method: str) -> dict[str, Any]:
        """The first event named ``method`` (already received or still to come)."""
        deadline = time.monotonic() + TIMEOUT
        seen = 0
        while True:
            for event in self.events[seen:]:
                if event.get("method") == method:
                    return event
            seen = len(self.events)
            self._receive(deadline)

    def _receive(self, deadline: float) -> dict[str, Any]:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no answer from Chromium in time")
        message = json.loads(self.socket.recv(timeout=remaining))
        if "method" in message:
            self.events.append(message)
        return message


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A headless Chromium with a fresh profile; yields its DevTools websocket address."""
    binary = chromium_binary()
    if binary is None:
        pytest.skip("no chromium binary (install the OS package: apt-get install -y chromium)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    log = (profile.parent / "chromium.log").open("wb")
    process = subprocess.Popen(
        [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its helper processes share our child's group, ended with it
    )
    try:
        active = profile / "DevToolsActivePort"
        deadline = time.monotonic() + TIMEOUT
        while not (active.exists() and len(active.read_text().splitlines()) >= 2):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"chromium did not start (exit {process.poll()}); see {log.name}")
            time.sleep(0.05)
        port, path = active.read_text().splitlines()[:2]
        yield f"ws://127.0.0.1:{port}{path}"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        log.close()


PROBE = """JSON.stringify({
  svgs: document.querySelectorAll("svg").length,
  tables: document.querySelectorAll("table").length,
  headings: [...document.querySelectorAll("h2")].map(h => h.textContent),
  curve: (() => { const s = document.getElementById("pass-k-curve"); if (!s) return null;
    const b = s.getBoundingClientRect(); return {width: b.width, height: b.height,
    lines: s.querySelectorAll("polyline").length, points: s.querySelectorAll("circle").length}; })(),
  bars: (() => { const s = document.getElementById("pass-1-by-family"); if (!s) return null;
    const b = s.getBoundingClientRect(); return {width: b.width, height: b.height,
    rects: s.querySelectorAll("rect").length}; })(),
  scripts: document.scripts.length,
  rows: document.querySelectorAll("tbody tr").length,
})"""


def load_page(browser: str, page: Path, screenshot: str | None = None) -> dict[str, Any]:
    """Open ``page`` in a new tab; what it shows, logged and requested."""
    with websockets_client.connect(browser, max_size=None, open_timeout=TIMEOUT) as socket:
        tools = DevTools(socket)
        target = tools.call("Target.createTarget", {"url": "about:blank"}, browser=True)["targetId"]
        attached = tools.call("Target.attachToTarget", {"targetId": target, "flatten": True}, browser=True)
        tools.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            tools.call(f"{domain}.enable")
        tools.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 2000, "deviceScaleFactor": 1, "mobile": False},
        )
        navigated = tools.call("Page.navigate", {"url": page.as_uri()})
        assert "errorText" not in navigated, navigated
        tools.wait_for("Page.loadEventFired")
        probe = tools.call("Runtime.evaluate", {"expression": PROBE, "returnByValue": True})
        if screenshot:
            shot = tools.call("Page.captureScreenshot", {"format": "png"})
            Path(screenshot).write_bytes(base64.b64decode(shot["data"]))
        tools.call("Target.closeTarget", {"targetId": target}, browser=True)
    errors = []
    for event in tools.events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.exceptionThrown":
            errors.append(params["exceptionDetails"].get("text", "exception"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append(" ".join(str(arg.get("value", arg.get("description"))) for arg in params["args"]))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            errors.append(params["entry"]["text"])
    requests = [
        e["params"]["request"]["url"] for e in tools.events if e["method"] == "Network.requestWillBeSent"
    ]
    return {"dom": json.loads(probe["result"]["value"]), "errors": errors, "requests": requests}


@pytest.fixture(scope="module")
def report_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report of real runs: the oracle and the random agent, each seed played twice (pass^1, pass^2)."""
    folder = tmp_path_factory.mktemp("report")
    files = []
    for agent in ("oracle", "random"):
        parts = []
        for trial in range(2):
            part = folder / f"{agent}-{trial}.part"
            run("ITSM-v0", agent, 6, seed=0, out=part, progress=None)
            parts.append(part.read_text(encoding="utf-8"))
        # One file an agent: records before record_version 2 name no agent; the file's stem does.
        files.append(folder / f"{agent}.jsonl")
        files[-1].write_text("".join(parts), encoding="utf-8")
    page = folder / "report.html"
    with open(os.devnull, "w") as discard:
        assert run_report(files, html_out=page, as_json=True, out=discard, agent_by_file=True) == 0
    return page


def test_report_page_renders_with_no_console_error_and_no_request(browser: str, report_page: Path) -> None:
    seen = load_page(browser, report_page, screenshot=os.environ.get("REPORT_SCREENSHOT"))
    assert seen["errors"] == []
    assert [url for url in seen["requests"] if not url.startswith(("file:", "data:"))] == []
    dom = seen["dom"]
    assert dom["svgs"] == 2 and dom["scripts"] == 0
    assert dom["curve"]["width"] > 300 and dom["curve"]["height"] > 200
    assert dom["curve"]["lines"] == 2 and dom["curve"]["points"] == 4  # two agents, k = 1 and 2
    assert dom["bars"]["rects"] >= 2 and dom["bars"]["height"] > 100
    assert dom["tables"] >= 8 and dom["rows"] > 10
    assert "By scenario family" in dom["headings"] and "pass^k by agent" in dom["headings"]


def test_the_harness_sees_errors_and_requests(browser: str, tmp_path: Path) -> None:
    """A control: a page that logs, throws and fetches is caught (so a clean result means something)."""
    page = tmp_path / "bad.html"
    page.write_text(
        "<!DOCTYPE html><html><head><title>bad</title></head><body>"
        '<img src="http://127.0.0.1:9/missing.png">'
        "<script>console.error('logged'); undefined_name();</script></body></html>",
        encoding="utf-8",
    )
    seen = load_page(browser, page)
    assert any("logged" in error for error in seen["errors"])
    assert any("undefined_name" in error or "Uncaught" in error for error in seen["errors"])
    assert "http://127.0.0.1:9/missing.png" in seen["requests"]
