"""A minimal Chrome DevTools Protocol client over `--remote-debugging-pipe` (no extra packages):
Debian's headless chromium will not make a window narrower than 500 pixels, so a phone-sized
viewport (390 x 844) needs Emulation.setDeviceMetricsOverride.

Chromium reads commands from its file descriptor 3 and writes replies and events to 4, each
message JSON ended by a NUL byte (content/browser/devtools/devtools_pipe_handler.cc)."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import subprocess
import time
from pathlib import Path

from browser_helpers import chromium

TIMEOUT = 120.0


def _above_four(fd: int) -> int:
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class Browser:
    def __init__(self, profile: Path) -> None:
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        # Above 4, so that making them the child's 3 and 4 cannot overwrite one with the other.
        to_chrome_r, from_chrome_w = (_above_four(fd) for fd in (to_chrome_r, from_chrome_w))
        command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                   "--disable-background-networking", "--disable-component-update", "--disable-sync",
                   "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"]
        # The pipe ends become the child's descriptors 3 and 4, whatever their numbers are here
        # (bash: dash refuses descriptors above 9 in a redirection).
        with open(profile.parent / f"{profile.name}.log", "wb") as log:   # chromium's own messages
            self.proc = subprocess.Popen(["bash", "-c", f'exec "$@" 3<&{to_chrome_r} 4>&{from_chrome_w}', "bash",
                                          *command], pass_fds=(to_chrome_r, from_chrome_w),
                                         stdout=subprocess.DEVNULL, stderr=log)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self.session = ""

    def close(self) -> None:
        try:
            self.send("Browser.close", session=False)
        except (OSError, RuntimeError, TimeoutError):
            pass
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- messages -----------------------------------------------------------------------------
    def send(self, method: str, params: dict | None = None, session: bool = True) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == message["id"]:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str) -> dict:
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read())

    def _read(self) -> dict:
        deadline = time.monotonic() + TIMEOUT
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._from_chrome], [], [], max(0.0, left))
            if not ready:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(raw)

    # -- a page -------------------------------------------------------------------------------
    def open(self, url: str, width: int, height: int, mobile: bool = False) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                          "mobile": mobile})
        self.send("Page.enable")
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str):
        """The value of a JavaScript expression (a promise is awaited)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(json.dumps(result["exceptionDetails"])[:2000])
        return result["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))
        return path
