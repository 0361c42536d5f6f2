#!/usr/bin/env python3
"""What a deployed copy of the site sends for its key files (`make check-host URL=...`): the
bytes on the wire and decoded, Content-Encoding, Content-Type, CORS and caching headers, each
file checked against the sha256 the build recorded in its worker (sw.js), and one line of
advice per problem (docs/hosting.md has the recipes per host). Standard library only, so that it
runs anywhere python3 does:

    python3 -m site_builder.check_host https://you.github.io/course/

Exit code 0: no problem found; 1: problems (listed); 2: no site there (one `error:` line).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
import zlib

# The files a first visit waits for, heaviest first.
KEY_FILES = [
    "static/vendor/ort-wasm-simd-threaded.wasm",
    "static/model/model.onnx",
    "static/attention-view/widget.js",
    "static/vendor/ort.wasm.min.mjs",
    "static/model/tokenizer.json",
    "index.html",
    "sw.js",
]
# Worth compressing on the wire (the model's weights compress by ~13%: reported, not flagged).
TEXT_LIKE = (".wasm", ".js", ".mjs", ".json", ".html")
TYPES = {".wasm": ("application/wasm",), ".js": ("text/javascript", "application/javascript"),
         ".mjs": ("text/javascript", "application/javascript"), ".json": ("application/json",),
         ".html": ("text/html",)}
ORIGIN = "https://another-site.example"  # a page of another origin, to see the CORS answer
TIMEOUT = 60


class HostError(RuntimeError):
    pass


def fetch(url: str, accept: str) -> tuple[int, dict, bytes]:
    """(status, lower-cased headers, body as sent: nothing decoded). A 4xx/5xx is an answer too."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": accept, "Origin": ORIGIN,
                                                   "User-Agent": "attention-live check-host"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, b""


def browser_accept(base: str) -> str:
    """What a browser asks for: brotli only over HTTPS or from the machine itself."""
    parts = urllib.parse.urlsplit(base)
    secure = parts.scheme == "https" or parts.hostname in ("localhost", "127.0.0.1", "::1")
    return "gzip, deflate, br" if secure else "gzip, deflate"


def megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def decoded(body: bytes, coding: str) -> bytes | None:
    """The body decoded with the standard library (None for brotli, which it cannot read)."""
    if coding in ("", "identity"):
        return body
    if coding in ("gzip", "x-gzip"):
        return gzip.decompress(body)
    if coding == "deflate":
        return zlib.decompress(body)
    return None


def site_manifest(base: str) -> dict:
    try:
        status, headers, body = fetch(base + "sw.js", "gzip")
    except (urllib.error.URLError, OSError, ValueError) as err:
        raise HostError(f"cannot reach {base}: {getattr(err, 'reason', err)}")
    try:
        first = (decoded(body, headers.get("content-encoding", "")) or b"").split(b"\n", 1)[0].decode()
        data = json.loads(first.removeprefix("self.OFFLINE = ").removesuffix(";"))
        return {**data["files"], **data.get("lazy", {})} | {"version": data["version"]}
    except (ValueError, KeyError, TypeError, OSError, EOFError, zlib.error):
        raise HostError(f"{base} is not a deployed site of this project (its sw.js, HTTP {status}, holds no manifest)")


def check_file(base: str, name: str, sha256: str | None, accept: str) -> tuple[dict, list[str]]:
    url = base + name
    status, headers, body = fetch(url, accept)
    coding = headers.get("content-encoding", "").strip().lower()
    row = {"file": name, "status": status, "type": headers.get("content-type", "-"), "encoding": coding or "-",
           "sent": len(body), "decoded": None, "cache": ", ".join(
               h for h in ("cache-control", "etag", "last-modified") if h in headers) or "none",
           "cors": headers.get("access-control-allow-origin")}
    if status != 200:
        return row, [f"{name}: HTTP {status}: deploy the whole built folder (make site's _site/), static/ included"]
    problems = []
    plain = decoded(body, coding)
    if plain is None:  # brotli: ask again for gzip or nothing, which the standard library reads
        _, again, body2 = fetch(url, "gzip")
        plain = decoded(body2, again.get("content-encoding", "").strip().lower())
    row["decoded"] = len(plain) if plain is not None else None
    suffix = "." + name.rpartition(".")[2]
    kind = row["type"].split(";")[0].strip().lower()
    if suffix in TYPES and kind not in TYPES[suffix]:
        problems.append(f"{name}: sent as {kind}; it must be {TYPES[suffix][0]}"
                        + (" (without it the runtime is copied, then compiled, not compiled as it streams)"
                           if suffix == ".wasm" else " (browsers refuse module scripts of other types)"
                           if suffix in (".js", ".mjs") else ""))
    if plain is not None and sha256 and hashlib.sha256(plain).hexdigest() != sha256:
        problems.append(f"{name}: its bytes are not the build's (sha256): a stale or partial deploy, or a "
                        "host that rewrites files; the offline worker will refuse it")
    if not coding and suffix in TEXT_LIKE and len(body) > 1024:
        problems.append(f"{name}: sent uncompressed ({megabytes(len(body))}): upload the build's .br/.gz copies "
                        "with a host that serves them, or turn on compression for its type (docs/hosting.md)")
    if coding and "accept-encoding" not in headers.get("vary", "").lower():
        problems.append(f"{name}: {coding} without `Vary: Accept-Encoding`: a shared cache may hand it to a "
                        "client that cannot decode it")
    if "etag" not in headers and "last-modified" not in headers:
        problems.append(f"{name}: no ETag or Last-Modified: a reader's browser cannot revalidate it and "
                        "downloads it again")
    return row, problems


def report(base: str) -> tuple[list[str], list[str]]:
    """The report's lines and the problems found, for the site at `base`."""
    manifest = site_manifest(base)
    accept = browser_accept(base)
    lines = [f"{base}: site version {manifest['version']}; asked as a browser does (Accept-Encoding: {accept})",
             f"{'file':44} {'HTTP':>4} {'encoding':8} {'sent':>12} {'decoded':>12}  {'type':24} caching headers"]
    problems, rows = [], []
    for name in KEY_FILES:
        row, found = check_file(base, name, manifest.get(name), accept)
        rows.append(row)
        problems += found
        size = f"{row['decoded']:,}" if row["decoded"] is not None else "-"
        lines.append(f"{name:44} {row['status']:>4} {row['encoding']:8} {row['sent']:>12,} {size:>12}  "
                     f"{row['type'][:24]:24} {row['cache']}")
    sent = sum(r["sent"] for r in rows)
    lines.append(f"these files: {sent:,} bytes on the wire ({megabytes(sent)})")
    cors = {r["cors"] for r in rows if r["status"] == 200}
    if cors == {None}:
        lines.append("CORS: no Access-Control-Allow-Origin: pages of other origins cannot load the view from here "
                     "(only needed to embed it across origins; docs/embedding.md)")
    else:
        lines.append(f"CORS: Access-Control-Allow-Origin: {', '.join(sorted(str(c) for c in cors))}")
    return lines, problems


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage text
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)


def main(argv: list[str] | None = None) -> int:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("url", nargs="?", help="the deployed site's address (its index.html's folder)")
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("give the deployed site's address: make check-host URL=https://you.github.io/course/")
    parts = urllib.parse.urlsplit(args.url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        parser.error(f"{args.url} is not an http:// or https:// address")
    path = parts.path.rsplit("/", 1)[0] + "/" if parts.path.endswith(".html") else parts.path.rstrip("/") + "/"
    base = urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    try:
        lines, problems = report(base)
    except HostError as err:
        parser.error(str(err))
    print("\n".join(lines))
    if problems:
        print(f"{len(problems)} problem(s):")
        print("\n".join(f"- {p}" for p in problems))
        return 1
    print("no problem found")
    return 0


if __name__ == "__main__":
    sys.exit(main())
