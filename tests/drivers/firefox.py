"""Firefox for the engine tests: Debian's firefox-esr, driven by puppeteer-core over WebDriver
BiDi in a Node process (firefox_bridge.mjs) that this module talks to in JSON lines."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from drivers import Engine, Page
from helpers import ROOT

FIREFOX = "/usr/bin/firefox-esr"
BRIDGE = Path(__file__).with_name("firefox_bridge.mjs")


class FirefoxEngine(Engine):
    name = "firefox"

    def __init__(self, executable: str = FIREFOX):
        node = shutil.which("node")
        assert node, "node is not installed"
        # stderr is left to the terminal: Firefox's own complaints help when a launch fails.
        self.process = subprocess.Popen([node, str(BRIDGE), executable], cwd=ROOT, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.version = "Firefox " + self._answer()["version"].split("/")[-1]

    def call(self, op: str, **fields):
        self.process.stdin.write(json.dumps({"op": op, **fields}) + "\n")
        self.process.stdin.flush()
        return self._answer()

    def _answer(self):
        line = self.process.stdout.readline()
        assert line, f"the Firefox bridge stopped (exit code {self.process.poll()})"
        message = json.loads(line)
        if "error" in message:
            raise RuntimeError(f"firefox: {message['error']}")
        return message["ok"]

    def new_page(self) -> Page:
        return FirefoxPage(self, self.call("page"))

    def quit(self):
        self.process.stdin.close()  # the bridge closes the browser and exits
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


class FirefoxPage(Page):
    engine = "firefox"

    def __init__(self, bridge: FirefoxEngine, page_id: int):
        self.bridge = bridge
        self.id = page_id

    def _call(self, op, **fields):
        return self.bridge.call(op, page=self.id, **fields)

    def goto(self, url):
        self._call("goto", url=url)

    def reload(self):
        self._call("reload")

    def press(self, key):
        self._call("press", key=key)

    def type(self, text):
        self._call("type", text=text)

    def close(self):
        self._call("close")

    def _evaluate(self, expression):
        return self._call("evaluate", expression=expression)

    def _click(self, finder):
        self._call("click", finder=finder)

    def _focus(self, finder):
        self._call("focus", finder=finder)

    def _native_errors(self):
        return self._call("errors")
