"""Drive headless Chromium over the DevTools protocol: real mouse clicks and typing, layout measurements, screenshots.

``chromium --dump-dom`` shows the DOM after the page's scripts ran, but cannot click or measure; the DevTools protocol
(a JSON-RPC over a WebSocket, spoken by aiohttp's client) dispatches input events as a user's mouse and keyboard would,
at the element's position on the screen, so a click that misses (a covered or off-screen header) fails the test.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import re
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import aiohttp


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with one page, at a fixed window size."""

    def __init__(self, executable: str, width: int = 1400, height: int = 900) -> None:
        self._profile = tempfile.TemporaryDirectory()
        self._process = subprocess.Popen(
            [
                executable,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--hide-scrollbars",
                "--remote-debugging-port=0",
                f"--user-data-dir={self._profile.name}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self._process.stderr is not None
        port = None
        deadline = time.monotonic() + 60
        while port is None and time.monotonic() < deadline:
            line = self._process.stderr.readline()
            if not line and self._process.poll() is not None:
                raise BrowserError(f"chromium exited with status {self._process.returncode}")
            if match := re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line):
                port = int(match.group(1))
        if port is None:
            self.close()
            raise BrowserError("chromium did not open its DevTools port within 60 s")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as response:
            pages = [t for t in json.load(response) if t["type"] == "page"]
        self._loop = asyncio.new_event_loop()
        self._session = self._loop.run_until_complete(self._open_session())
        self._socket = self._loop.run_until_complete(
            self._session.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0)
        )
        self._ids = itertools.count(1)
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    async def _open_session(self) -> aiohttp.ClientSession:
        return aiohttp.ClientSession()

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one DevTools command and return its result (events received meanwhile are ignored)."""
        number = next(self._ids)

        async def exchange() -> dict[str, Any]:
            await self._socket.send_str(json.dumps({"id": number, "method": method, "params": params}))
            while True:
                message = json.loads((await self._socket.receive(timeout=60)).data)
                if message.get("id") == number:
                    if "error" in message:
                        raise BrowserError(f"{method}: {message['error']}")
                    return message.get("result", {})

        return self._loop.run_until_complete(exchange())

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url: str) -> None:
        """Load ``url`` and wait until its script marked the page ready."""
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + 30
        while self.evaluate("document.readyState === 'complete' && document.body.dataset.ready === '1'") is not True:
            if time.monotonic() > deadline:
                raise BrowserError(f"{url} did not become ready")
            time.sleep(0.05)

    def click(self, selector: str) -> None:
        """A left mouse click at the centre of the first element matching ``selector`` (scrolled into view)."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        if box is None:
            raise BrowserError(f"nothing matches {selector}")
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def type(self, text: str) -> None:
        """Type ``text`` into the focused element."""
        self.call("Input.insertText", text=text)

    def screenshot(self, path: Path) -> None:
        """The visible screen (the window size), as PNG."""
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))

    def close(self) -> None:
        try:
            if hasattr(self, "_socket"):
                self._loop.run_until_complete(self._socket.close())
                self._loop.run_until_complete(self._session.close())
                self._loop.close()
        finally:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._profile.cleanup()
