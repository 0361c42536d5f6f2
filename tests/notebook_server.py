"""A Jupyter server (JupyterLab or Notebook 7) started on loopback for a test, with the kernel
importing the built wheel, and the helpers that drive a notebook in it through Chromium: open
it, run its cells, run code in its kernel, and record every request the page makes."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

STARTUP_S = 120
# JupyterLab without announcements, update checks or the PyPI extension manager: the server
# asks nothing of the internet on the page's behalf either.
LAB_QUIET = ["--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
             "--LabApp.extension_manager=readonly"]
# Notebook 7.6.5 raises this page error on opening any notebook, one with no widget too
# (measured here: a notebook of `1+1` alone); it is Notebook's, not the widget's.
NOTEBOOK_OWN_ERRORS = ("Cannot read properties of undefined (reading 'schema')",)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_notebook(path: Path, cells: list[str]) -> Path:
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": src}
                    for src in cells],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


class JupyterServer:
    """`jupyter lab` or `jupyter notebook` on 127.0.0.1 serving `root`, its config and runtime
    folders under `home` (no user settings leak in), the kernel's path starting with `pythonpath`."""

    def __init__(self, app: str, root: Path, home: Path, pythonpath: Path):
        self.token = secrets.token_hex(16)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
               "IPYTHONDIR": str(home / "ipython"), "PYTHONPATH": str(pythonpath), "JUPYTER_PLATFORM_DIRS": "1",
               # `jupyter` finds its subcommands and kernels on PATH: this interpreter's first,
               # also when the suite runs as .venv/bin/python -m pytest without an activated venv
               "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
        app_class = "LabApp" if app == "lab" else "JupyterNotebookApp"
        self.log = open(home / f"{app}.log", "w")  # noqa: SIM115 (closed in stop())
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab" if app == "lab" else "notebook", "--no-browser", "--ServerApp.ip=127.0.0.1",
             f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
             f"--ServerApp.root_dir={root}", f"--{app_class}.expose_app_in_browser=True", "--allow-root",
             *(LAB_QUIET if app == "lab" else [])],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, cwd=root)
        self._wait()

    def _wait(self):
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the Jupyter server exited ({self.proc.returncode}): see {self.log.name}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"the Jupyter server did not answer within {STARTUP_S} s: see {self.log.name}")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


# --- driving the notebook in the page ------------------------------------------------------

WAIT_KERNEL = """async () => {
  const app = window.jupyterapp;
  const panel = app?.shell.currentWidget;
  const ctx = panel?.sessionContext;
  if (!ctx) return false;
  await ctx.ready;
  return ctx.session?.kernel?.status === "idle";
}"""

RUN_ALL = """async () => {
  await window.jupyterapp.commands.execute("notebook:run-all-cells");
}"""

# Runs code in the notebook's own kernel (so it sees the notebook's variables and widgets) and
# returns what it printed; an exception comes back as "ERROR name: value".
EXECUTE = """async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const future = kernel.requestExecute({ code, store_history: false });
  let out = "";
  future.onIOPub = (msg) => {
    const t = msg.header.msg_type;
    if (t === "stream") out += msg.content.text;
    else if (t === "error") out += `ERROR ${msg.content.ename}: ${msg.content.evalue}`;
  };
  await future.done;
  return out;
}"""


def open_notebook(page, url: str, timeout_s: float = 120):
    """Opens the notebook page and waits until its kernel is idle."""
    page.goto(url)
    page.wait_for_function("() => !!window.jupyterapp", timeout=timeout_s * 1000)
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(WAIT_KERNEL):
        if time.monotonic() > deadline:
            raise AssertionError("the notebook's kernel never became idle")
        page.wait_for_timeout(250)


def run_all(page):
    page.evaluate(RUN_ALL)


def execute(page, code: str) -> str:
    out = page.evaluate(EXECUTE, code)
    assert not out.startswith("ERROR"), out
    return out


def record_requests(page) -> list[str]:
    """Every URL the page requests from now on (documents, scripts, fetches, websockets)."""
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url))
    page.on("websocket", lambda ws: seen.append(ws.url))
    return seen
