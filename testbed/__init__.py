"""What the tests and the benchmark drive the site with, one copy for both: Debian's chromium
through Playwright (chromium.py), the built site (built_site.py), static file servers on
127.0.0.1 (static_server.py) and `make serve`'s own server with the compressed copies
(site_server.py). Firefox and WebKit are driven from tests/drivers/."""
