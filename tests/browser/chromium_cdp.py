"""Headless Chromium driven over the DevTools protocol on a pipe: no port, no websocket,
no Python dependency. Chromium reads commands on fd 3 and writes on fd 4, each message
JSON followed by a NUL byte.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class CdpError(RuntimeError):
    pass


@dataclass
class Page:
    """One tab, attached in flat mode: commands carry its sessionId."""

    browser: Browser
    session: str
    events: list[dict[str, Any]] = field(default_factory=list)

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session)

    def evaluate(self, expression: str) -> Any:
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in reply:
            raise CdpError(f"{expression!r}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 15.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise CdpError(f"timed out waiting for {expression!r}")
            self.browser.pump(0.05)

    def screenshot(self, path: Path, width: int = 1280) -> None:
        height = int(self.evaluate("document.documentElement.scrollHeight"))
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))


class Browser:
    def __init__(self, process: subprocess.Popen[bytes], to_browser: int, from_browser: int):
        self.process = process
        self._out = to_browser
        self._in = from_browser
        self._buffer = b""
        self._next_id = 0
        self._pages: dict[str, Page] = {}

    def _write(self, message: dict[str, Any]) -> None:
        os.write(self._out, json.dumps(message).encode() + b"\0")

    def _read(self, timeout: float) -> dict[str, Any] | None:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._in], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise CdpError("chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        decoded: dict[str, Any] = json.loads(message)
        return decoded

    def _dispatch(self, message: dict[str, Any]) -> None:
        page = self._pages.get(message.get("sessionId", ""))
        if page is not None and "method" in message:
            page.events.append(message)
            if message["method"] == "Page.javascriptDialogOpening":
                self._write(
                    {
                        "id": self._take_id(),
                        "sessionId": page.session,
                        "method": "Page.handleJavaScriptDialog",
                        "params": {"accept": False},
                    }
                )

    def _take_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def pump(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            message = self._read(left)
            if message is None:
                return
            self._dispatch(message)

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        number = self._take_id()
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self._write(message)
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(max(deadline - time.monotonic(), 0.01))
            if reply is None:
                if time.monotonic() > deadline:
                    raise CdpError(f"{method}: no answer in {timeout} s")
                continue
            if reply.get("id") == number:
                if "error" in reply:
                    raise CdpError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self._dispatch(reply)

    def new_page(self) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        page = Page(self, session)
        self._pages[session] = page
        for domain in ("Page", "Runtime", "Log", "Network"):
            page.send(f"{domain}.enable")
        return page

    def open(self, url: str, width: int = 1280, height: int = 900) -> Page:
        page = self.new_page()
        page.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        page.send("Page.navigate", {"url": url})
        page.wait_for("document.readyState === 'complete'")
        return page


@contextmanager
def chromium(executable: str) -> Iterator[Browser]:
    """A headless Chromium for the block; killed by its process group on the way out."""
    with tempfile.TemporaryDirectory(prefix="wirespeed-chromium-") as profile:
        to_read, to_browser = os.pipe()  # chromium's fd 3: commands in
        from_browser, to_write = os.pipe()  # chromium's fd 4: answers out
        # The child moves these to 3 and 4: neither may already be 3 or 4 itself.
        spare = []
        while to_read in (3, 4) or to_write in (3, 4):
            spare += [to_read, to_write]
            to_read, to_write = os.dup(to_read), os.dup(to_write)

        def _fds() -> None:
            os.dup2(to_read, 3)
            os.dup2(to_write, 4)

        # close_fds=False: it would close 3 and 4 after _fds ran; every other descriptor
        # Python opened is close-on-exec anyway (PEP 446).
        process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=_fds,  # noqa: PLW1509
            start_new_session=True,
        )
        for fd in spare:
            os.close(fd)
        os.close(to_read)
        os.close(to_write)
        try:
            yield Browser(process, to_browser, from_browser)
        finally:
            try:
                os.write(to_browser, json.dumps({"id": 0, "method": "Browser.close"}).encode())
                os.write(to_browser, b"\0")
                process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            finally:
                _end_group(process)
                os.close(to_browser)
                os.close(from_browser)


def _end_group(process: subprocess.Popen[bytes]) -> None:
    """Renderers and the zygote share the browser's process group (its id is the
    browser's pid): kill what is left of that group, then reap the browser."""
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
