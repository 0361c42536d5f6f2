"""Author tools: "Copy embed code" gives a script-tag snippet, an iframe snippet and
a jinja2 macro call that, pasted into a fresh page, reproduce the view on screen (the same
`result`); embed.html posts its height, and the README's listener sizes the frame to it."""

from __future__ import annotations

import re

import pytest

from conftest import embed_codes, view_result, wait_live, watched_page
from helpers import ROOT
from site_builder import build
from testbed.static_server import serve

pytestmark = pytest.mark.browser

TEXT = 'Alice said "yes" & then the Queen said <no>.'


@pytest.fixture(scope="module")
def server(built_site, tmp_path_factory):
    blog = tmp_path_factory.mktemp("blog")
    srv = serve({"/": built_site, "/blog/": blog})
    yield srv.url, blog
    srv.shutdown()


def fresh(blog, name, head, body):
    (blog / name).write_text(f'<!doctype html><html><head><meta charset="utf-8">{head}</head><body>{body}</body></html>',
                             encoding="utf-8")


def same_view(a, b):
    keys = ["text", "token", "layer", "head", "view", "scale"]
    assert [a[k] for k in keys] == [b[k] for k in keys]
    assert [t["id"] for t in a["tokens"]] == [t["id"] for t in b["tokens"]]
    assert a["attention"] == b["attention"]


def readme_listener() -> str:
    """The resize listener exactly as docs/embedding.md gives it to course authors."""
    text = (ROOT / "docs" / "embedding.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```js\n(.*?)```", text, re.S)
    return next(b for b in blocks if "attention-view:height" in b)


def test_snippets_reproduce_the_view(browser, server):
    url, blog = server
    context = browser.new_context()
    page = watched_page(context)
    try:
        page.goto(f"{url}/index.html")
        wait_live(page)
        page.evaluate("""(t) => { const el = document.querySelector("attention-view");
          el.setAttribute("text", t); el.setAttribute("token", "said#2"); el.setAttribute("layer", "1");
          el.setAttribute("head", "2"); el.setAttribute("scale", "relative"); }""", TEXT)
        want = view_result(page)
        page.locator("attention-view .embed-toggle").click()
        code = embed_codes(page)
        assert 'token="said#2"' in code["script"] and 'scale="relative"' in code["script"]
        assert f'src="{url}/static/attention-view.js"' in code["script"]
        assert code["jinja"].startswith("{{ attention_view(text=") and 'token="said#2"' in code["jinja"]

        fresh(blog, "script.html", "", code["script"])
        other = watched_page(context)
        other.goto(f"{url}/blog/script.html")
        wait_live(other)
        same_view(view_result(other), want)

        fresh(blog, "iframe.html", "", code["iframe"])
        other.goto(f"{url}/blog/iframe.html")
        frame = other.frame_locator("iframe")
        frame.locator("attention-view[data-status=live]").wait_for(state="attached", timeout=60_000)
        inner = next(f for f in other.frames if f.url.startswith(f"{url}/embed.html"))
        same_view(view_result(inner), want)

        from jinja2 import Environment, FileSystemLoader

        env = Environment(loader=FileSystemLoader(str(ROOT / "site_builder" / "templates")), autoescape=True)
        # The macro's attributes come from the widget's state schema, through site_builder/build.py.
        env.globals["widget_module"] = build.WIDGET_MODULE
        env.globals["view_attributes"] = build.view_attributes
        html = env.from_string('{% from "_macros.html" import attention_view, attention_view_head %}'
                               "<!doctype html><html><head><meta charset='utf-8'>{{ attention_view_head(root) }}</head>"
                               "<body>" + code["jinja"] + "</body></html>").render(root=f"{url}/")
        (blog / "macro.html").write_text(html, encoding="utf-8")
        other.goto(f"{url}/blog/macro.html")
        wait_live(other)
        same_view(view_result(other), want)
        assert not page.page_errors and not other.page_errors
    finally:
        context.close()


def chapter_with_frame(browser, blog, name, embed, script, before=""):
    """A chapter page in `blog` with one 300 px iframe of `embed` (a short sentence) and
    `script`, opened in a 900 px wide page of its own (its context is `page.context`)."""
    fresh(blog, name, "",
          f'<h1>A chapter</h1>{before}<iframe src="{embed}?text=The%20cat%20sat&token=-1" width="100%" height="300" '
          f'title="Live attention view"></iframe><p>After the frame.</p><script>{script}</script>')
    return watched_page(browser.new_context(viewport={"width": 900, "height": 700}))


def test_iframe_resizes_to_its_content(browser, server):
    url, blog = server
    listener = readme_listener()
    assert len(listener.strip().splitlines()) == 5
    page = chapter_with_frame(browser, blog, "resize.html", "/embed.html", listener)
    try:
        page.goto(f"{url}/blog/resize.html")
        page.frame_locator("iframe").locator("attention-view[data-status=live]").wait_for(state="attached", timeout=60_000)
        frame = next(f for f in page.frames if "/embed.html" in f.url)
        # The frame's own content height, then the iframe once the last message has landed.
        page.wait_for_function("""() => {
          const f = document.querySelector("iframe"), d = f.contentDocument;
          const b = d.body.getBoundingClientRect(), mb = parseFloat(getComputedStyle(d.body).marginBottom);
          return f.style.height !== "" && Math.abs(f.clientHeight - Math.ceil(b.bottom + f.contentWindow.scrollY + mb)) <= 1;
        }""", timeout=30_000)
        height = page.evaluate("() => document.querySelector('iframe').clientHeight")
        assert height > 300
        # Nothing left to scroll inside the frame, and the link out is at the top.
        inner = frame.evaluate("() => [document.documentElement.scrollHeight, document.documentElement.clientHeight]")
        assert inner[0] <= inner[1] + 1
        top = frame.evaluate("() => document.querySelector('a.embed-full').getBoundingClientRect().top")
        assert 0 <= top < 60
    finally:
        page.context.close()


def test_a_frame_loaded_off_screen_has_its_height_before_it_is_scrolled_to(browser, server):
    """A frame far down a chapter, from another origin (the browser skips rendering such a frame
    while it is off screen): it never posts the fallback's height, it has the view's height
    before the reader gets there, and scrolling to it changes nothing."""
    url, blog = server
    other = url.replace("127.0.0.1", "localhost")
    record = "addEventListener('message', (e) => { (window.heights ||= []).push(e.data.height); });"
    page = chapter_with_frame(browser, blog, "far.html", f"{url}/embed.html", record + readme_listener(),
                              before='<div style="height: 4000px">Text.</div>')
    try:
        page.goto(f"{other}/blog/far.html")
        page.frame_locator("iframe").locator("attention-view[data-status=live]").wait_for(state="attached", timeout=60_000)
        page.wait_for_function("() => (window.heights || []).length > 0", timeout=30_000)
        first = page.evaluate("() => window.heights[0]")
        assert first > 300, first  # the view's height, never the fallback's
        page.evaluate("() => document.querySelector('iframe').scrollIntoView()")
        frame = next(f for f in page.frames if "/embed.html" in f.url)
        frame.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        inner = frame.evaluate("""() => Math.ceil(document.body.getBoundingClientRect().bottom + scrollY
          + parseFloat(getComputedStyle(document.body).marginBottom))""")
        heights = page.evaluate("() => window.heights")
        # the first height posted, off screen, is the one the reader sees on screen
        assert abs(inner - first) <= 1 and min(heights) > 300, (first, inner, heights)
    finally:
        page.context.close()
