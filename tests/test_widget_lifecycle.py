"""The element's lifecycle on a host page: a view removed from the page while the model writes
stops writing (no `change` event from a detached element), and one that is only moved keeps
going. In Debian's chromium, on the built site."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# Starts a long generate(), and once its first token is drawn runs `then(el)`; resolves with the
# generation's result and the `change` events of action "generate" after `then`.
GENERATE_THEN = """async ([then, maxTokens]) => {
  const el = document.querySelector("attention-view");
  let after = null;
  const first = new Promise((resolve) => el.addEventListener("change", (e) => {
    if (e.detail.action !== "generate") return;
    if (after === null) resolve(); else after++;
  }));
  const writing = el.generate({ maxTokens, temperature: 0, seed: 1 });
  await first;
  after = 0;
  ({ remove: () => el.remove(), move: () => el.parentNode.append(el) })[then]();
  const result = await writing;
  return { reason: result.reason, tokens: result.tokens.length, after, connected: el.isConnected };
}"""


def test_a_view_removed_mid_generation_stops_writing(page, site_url):
    page.goto(f"{site_url}/index.html")
    page.wait_for_selector("attention-view[data-status=live]", state="attached", timeout=60_000)
    got = page.evaluate(GENERATE_THEN, ["remove", 60])
    assert got["connected"] is False
    assert got["reason"] == "stop", got
    assert got["tokens"] < 60 and got["after"] <= 1, got  # at most the step already in flight
    assert page.page_errors == []


def test_a_view_moved_mid_generation_keeps_writing(page, site_url):
    page.goto(f"{site_url}/index.html")
    page.wait_for_selector("attention-view[data-status=live]", state="attached", timeout=60_000)
    got = page.evaluate(GENERATE_THEN, ["move", 8])
    assert got == {"reason": "max-tokens", "tokens": 8, "after": 7, "connected": True}
    assert page.page_errors == []
