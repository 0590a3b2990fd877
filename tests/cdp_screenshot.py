"""Screenshots from headless Chromium that wait until the page's fonts are loaded.

``chromium --screenshot`` captures the first paint after the load event; a web
font (the report's embedded CJK glyphs) may still be loading then, so text is
drawn with a fallback or not at all, depending on timing. Here Chromium is
driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages ending in a NUL byte on file descriptors 3 and 4), and the
picture is taken once ``document.fonts.ready`` has resolved and two frames
have been drawn. Standard library only.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import tempfile
from pathlib import Path


class _Pipe:
    def __init__(self, proc: subprocess.Popen, write_fd: int, read_fd: int):
        self.proc, self.out, self.inp = proc, os.fdopen(write_fd, "wb"), os.fdopen(read_fd, "rb")
        self.next_id, self.buffer, self.events = 0, b"", []

    def _message(self) -> dict:
        while b"\0" not in self.buffer:
            chunk = self.inp.read1(1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, session: str | None = None, **params) -> dict:
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        self.out.write(json.dumps(msg).encode() + b"\0")
        self.out.flush()
        while True:
            reply = self._message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str) -> dict:
        for i, ev in enumerate(self.events):
            if ev.get("method") == method:
                return self.events.pop(i)
        while True:
            ev = self._message()
            if ev.get("method") == method:
                return ev
            self.events.append(ev)


def screenshot_when_fonts_ready(browser: str, page: Path, png: Path, width: int, height: int,
                                env: dict | None = None) -> None:
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()

    def child_fds() -> None:  # Chromium reads commands on fd 3 and writes replies on fd 4
        os.dup2(to_child_r, 3)
        os.dup2(from_child_w, 4)

    with tempfile.TemporaryDirectory() as profile:
        cmd = [browser, "--headless", "--remote-debugging-pipe", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--hide-scrollbars", f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.insert(1, "--no-sandbox")
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=child_fds,
                                pass_fds=(3, 4),  # kept open after preexec_fn put the pipes there
                                env=None if env is None else {**os.environ, **env})
        os.close(to_child_r)
        os.close(from_child_w)
        pipe = _Pipe(proc, to_child_w, from_child_r)
        try:
            target = pipe.call("Target.createTarget", url="about:blank")["targetId"]
            session = pipe.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            pipe.call("Page.enable", session)
            pipe.call("Emulation.setDeviceMetricsOverride", session, width=width, height=height,
                      deviceScaleFactor=1, mobile=False)
            pipe.call("Page.navigate", session, url=page.resolve().as_uri())
            pipe.wait_event("Page.loadEventFired")
            pipe.call("Runtime.evaluate", session, awaitPromise=True, expression=(
                "document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => "
                "requestAnimationFrame(r))))"))
            shot = pipe.call("Page.captureScreenshot", session, format="png")
            png.write_bytes(base64.b64decode(shot["data"]))
            pipe.call("Browser.close")
        finally:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
