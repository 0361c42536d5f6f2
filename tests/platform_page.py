"""A foreign platform's page holding the embed in an iframe: no CSP of ours, served on the test
server's origin, as a course platform would hold the view."""

from __future__ import annotations


def host_page(site_url, page, query: str, width: int = 640, height: int = 700, head: str = "", after: str = "") -> None:
    """A foreign 'platform' page (no CSP of ours, routed on the test server's origin) holding one
    iframe of embed.html?QUERY, WIDTH x HEIGHT; `head` goes in its <head>, `after` after the frame."""
    html = (f'<!doctype html><html><head><meta charset="utf-8"><title>platform</title>{head}</head><body>'
            f'<p>Course text before the embed.</p>'
            f'<iframe src="embed.html?{query}" width="{width}" height="{height}" title="Live attention view"></iframe>'
            f'{after}</body></html>')
    page.route(f"{site_url}/platform.html", lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    page.goto(f"{site_url}/platform.html")
