"""The build's precompressed copies (site_builder/precompress.py): FILE.br and FILE.gz beside
every file worth compressing, each decoding to its file; none for small files; a cache entry is
used only when it decodes to the file; an edited built folder gets fresh copies with
--manifest-only. What `make serve` does with them: test_serve.py."""

from __future__ import annotations

import gzip
import shutil
import subprocess

import brotli

from helpers import ROOT
from site_builder.precompress import COMPRESSIBLE, MIN_BYTES, SUFFIXES, compress_folder, decode, is_copy
from testbed.built_site import BUILD

CODING = {suffix: coding for coding, suffix in SUFFIXES.items()}
KEY_FILES = ("index.html", "sw.js", "static/vendor/ort-wasm-simd-threaded.wasm", "static/vendor/ort.wasm.min.mjs",
             "static/model/model.onnx", "static/model/tokenizer.json", "static/attention-view/widget.js")


def test_every_copy_decompresses_to_its_file(built_site):
    copies = [p for p in built_site.rglob("*") if is_copy(p)]
    assert len(copies) > 20
    for copy in copies:
        original = copy.with_suffix("").read_bytes()
        assert decode(copy.read_bytes(), CODING[copy.suffix]) == original, copy
        assert len(copy.read_bytes()) < len(original), copy
    for name in KEY_FILES:
        for suffix in SUFFIXES.values():
            assert (built_site / f"{name}{suffix}").is_file(), f"{name}{suffix}"


def test_small_files_and_other_types_get_no_copy(built_site):
    small = [p for p in built_site.rglob("*") if p.is_file() and not is_copy(p)
             and p.suffix in COMPRESSIBLE and p.stat().st_size < MIN_BYTES]
    other = [p for p in built_site.rglob("*") if p.is_file() and not is_copy(p) and p.suffix not in COMPRESSIBLE]
    assert small and other
    for path in small + other:
        assert not any(path.with_name(path.name + s).exists() for s in SUFFIXES.values()), path


def test_gzip_copies_carry_no_time(built_site):
    """The same file gives the same .gz on every build: no modification time in its header."""
    wasm_gz = (built_site / "static/vendor/ort-wasm-simd-threaded.wasm.gz").read_bytes()
    assert wasm_gz[4:8] == b"\0\0\0\0"


def test_a_cache_entry_of_other_bytes_is_not_used(tmp_path):
    site, cache = tmp_path / "site", tmp_path / "cache"
    site.mkdir()
    page = site / "page.html"
    page.write_text("<p>the real page</p>\n" * 200, encoding="utf-8")
    compress_folder(site, cache)
    # Every entry now holds a valid stream of other bytes (a damaged or colliding cache).
    for entry in cache.iterdir():
        wrong = b"<p>another page</p>\n" * 200
        entry.write_bytes(brotli.compress(wrong) if entry.suffix == ".br" else gzip.compress(wrong))
    sizes = compress_folder(site, cache)
    assert set(sizes["page.html"]) == {"raw", "br", "gzip"}
    assert brotli.decompress((site / "page.html.br").read_bytes()) == page.read_bytes()
    assert gzip.decompress((site / "page.html.gz").read_bytes()) == page.read_bytes()


def test_manifest_only_refreshes_the_copies_of_an_edited_file(built_site, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    index = site / "index.html"
    index.write_text(index.read_text(encoding="utf-8").replace("</body>", "<p>edited</p></body>"), encoding="utf-8")
    subprocess.run([*BUILD, "--out", str(site), "--manifest-only"], check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    for suffix, coding in CODING.items():
        assert decode((site / f"index.html{suffix}").read_bytes(), coding) == index.read_bytes()
