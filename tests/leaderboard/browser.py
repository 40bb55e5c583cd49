"""Drive headless Chromium through Playwright: real mouse clicks and typing, layout measurements, screenshots.

``chromium --dump-dom`` shows the DOM after the page's scripts ran, but cannot click or measure; Playwright dispatches
input events as a user's mouse and keyboard would, at the element's position on the screen, and refuses to click an
element that another one covers, so a click that would miss fails the test. It drives the system's Chromium
(Debian's ``chromium`` package): no browser is downloaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

CLICK_TIMEOUT_MS = 10_000
READY_TIMEOUT_MS = 30_000


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with one page, at a fixed window size."""

    def __init__(self, executable: str, width: int = 1400, height: int = 900) -> None:
        self._playwright = sync_playwright().start()
        try:
            self._browser = self._playwright.chromium.launch(
                executable_path=executable,
                args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"],
            )
            self._page = self._browser.new_page(viewport={"width": width, "height": height}, device_scale_factor=1)
        except PlaywrightError as exc:
            self._playwright.stop()
            raise BrowserError(f"{executable}: {exc}") from exc

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        return self._page.evaluate(expression)

    def open(self, url: str) -> None:
        """Load ``url`` and wait until its script marked the page ready."""
        self._page.goto(url)
        ready = "document.readyState === 'complete' && document.body.dataset.ready === '1'"
        try:
            self._page.wait_for_function(ready, timeout=READY_TIMEOUT_MS)
        except PlaywrightError as exc:
            raise BrowserError(f"{url} did not become ready") from exc

    def click(self, selector: str) -> None:
        """A left mouse click at the centre of the first element matching ``selector`` (scrolled into view)."""
        try:
            self._page.locator(selector).first.click(timeout=CLICK_TIMEOUT_MS)
        except PlaywrightError as exc:
            raise BrowserError(f"cannot click {selector}: {exc}") from exc

    def type(self, text: str) -> None:
        """Type ``text`` into the focused element."""
        self._page.keyboard.insert_text(text)

    def press(self, key: str) -> None:
        """Press and release a key (``Backspace``, ``Enter``) in the focused element."""
        self._page.keyboard.press(key)

    def screenshot(self, path: Path) -> None:
        """The visible screen (the window size), as PNG."""
        self._page.screenshot(path=str(path))

    def close(self) -> None:
        try:
            self._browser.close()
        finally:
            self._playwright.stop()
