"""WebKit for the engine tests: Debian's WebKitGTK through its WebDriver (webkit2gtk-driver)
and Selenium, on an Xvfb display of its own. Debian's MiniBrowser has no headless mode, and
without a display creating a session hangs. WebKitGTK's WebDriver has no BiDi and no console
log: the pages' recorder.js is all there is."""

from __future__ import annotations

import os
import subprocess

from drivers import Engine, Page

WEBDRIVER = "/usr/bin/WebKitWebDriver"
XVFB = "/usr/bin/Xvfb"
# Selenium's names for the keys the tests press (anything else is typed as itself).
KEYS = {"ArrowLeft": "\ue012", "ArrowRight": "\ue014", "Home": "\ue011", "End": "\ue010",
        "Enter": "\ue007", "Space": "\ue00d", "Tab": "\ue004", "Escape": "\ue00c"}


def start_display() -> tuple[subprocess.Popen, str]:
    """An Xvfb server on a free display number (Xvfb picks it and writes it to a pipe)."""
    read, write = os.pipe()
    xvfb = subprocess.Popen([XVFB, "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    assert number, f"Xvfb did not start (exit code {xvfb.poll()})"
    return xvfb, f":{number}"


class WebKitEngine(Engine):
    name = "webkit"

    def __init__(self):
        self.xvfb, self.display = start_display()
        self.version = ""
        self.pages: list[WebKitPage] = []

    def new_page(self) -> Page:
        """A fresh WebDriver session: WebKitGTK gives each one an ephemeral profile."""
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        env = {**os.environ, "DISPLAY": self.display}
        driver = webdriver.WebKitGTK(options=Options(), service=Service(executable_path=WEBDRIVER, env=env))
        driver.set_script_timeout(300)
        self.version = f"WebKitGTK {driver.capabilities.get('browserVersion')}"
        page = WebKitPage(driver)
        self.pages.append(page)
        return page

    def quit(self):
        for page in self.pages:
            page.close()
        self.xvfb.terminate()
        self.xvfb.wait(timeout=30)


class WebKitPage(Page):
    engine = "webkit"

    def __init__(self, driver):
        self.driver = driver
        self.closed = False

    def goto(self, url):
        self.driver.get(url)

    def reload(self):
        self.driver.refresh()

    def _actions(self, keys: str):
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.driver).send_keys(keys).perform()

    def press(self, key):
        self._actions(KEYS.get(key, key))

    def type(self, text):
        self._actions(text)

    def close(self):
        if not self.closed:
            self.closed = True
            self.driver.quit()

    def _evaluate(self, expression):
        answer = self.driver.execute_async_script(f"""const done = arguments[arguments.length - 1];
          Promise.resolve().then(() => {expression}).then((ok) => done({{ ok }}),
            (e) => done({{ error: String((e && e.stack) || e) }}));""")
        if "error" in answer:
            raise RuntimeError(f"webkit: {answer['error']}")
        return answer["ok"]

    def _element(self, finder):
        element = self.driver.execute_script(f"return {finder};")
        assert element is not None, finder
        return element

    def _click(self, finder):
        # Pointer actions at the element's centre: WebKit's element-click command refuses some
        # elements inside a shadow root as "not interactable".
        from selenium.common.exceptions import MoveTargetOutOfBoundsException
        from selenium.webdriver.common.action_chains import ActionChains

        element = self._element(finder)
        for attempt in range(3):
            # Scrolled there, then two frames for the view to settle: a repaint that moves the
            # element after the scroll (a hint appearing above it) would send the pointer off it.
            self.driver.execute_async_script("""const [el, done] = arguments;
              el.scrollIntoView({block: 'center'});
              requestAnimationFrame(() => requestAnimationFrame(() => done()));""", element)
            try:
                ActionChains(self.driver).move_to_element(element).click().perform()
                return
            except MoveTargetOutOfBoundsException:
                if attempt == 2:
                    raise

    def _focus(self, finder):
        self.driver.execute_script("arguments[0].focus();", self._element(finder))
