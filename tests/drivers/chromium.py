"""Chromium for the engine tests: Debian's chromium through the session's Playwright browser
(testbed/chromium.py launches it; a process can run only one sync Playwright)."""

from __future__ import annotations

from drivers import Engine, Page


class ChromiumPage(Page):
    engine = "chromium"

    def __init__(self, context):
        self.context = context
        self.page = context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))

    def goto(self, url):
        self.page.goto(url)

    def reload(self):
        self.page.reload()

    def press(self, key):
        self.page.keyboard.press(key)

    def type(self, text):
        self.page.keyboard.type(text)

    def close(self):
        self.context.close()

    def _evaluate(self, expression):
        return self.page.evaluate(expression)

    def _element(self, finder):
        element = self.page.evaluate_handle(finder).as_element()
        assert element is not None, finder
        return element

    def _click(self, finder):
        self._element(finder).click()

    def _focus(self, finder):
        self._element(finder).focus()

    def _native_errors(self):
        errors, self.errors = self.errors, []
        return errors


class ChromiumEngine(Engine):
    name = "chromium"

    def __init__(self, browser):
        self.browser = browser
        self.version = f"Chromium {browser.version}"

    def new_page(self) -> Page:
        return ChromiumPage(self.browser.new_context())
