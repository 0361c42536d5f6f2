"""The built site's output folder: the offline worker's manifest lists every file of the build
with its hash (and a manifest-only rebuild rehashes just what changed), the folder `make serve`
serves holds the site and nothing else, and a rebuild or a failed build leaves no stale files."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess

from build_tree import fake_repo
from conftest import ROOT
from site_builder.precompress import is_copy
from testbed.built_site import BUILD


def sw_manifest(site) -> dict:
    first = (site / "sw.js").read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("self.OFFLINE = ") and first.endswith(";")
    return json.loads(first.removeprefix("self.OFFLINE = ")[:-1])


def test_worker_manifest_lists_every_file_with_its_hash(built_site):
    """The offline worker checks what it caches against these hashes: every built file but the
    worker itself, each with its sha256, and a version that changes with any file. The model's
    training timeline, if it has one, is listed apart (`lazy`: kept once fetched, never precached).
    The precompressed copies (FILE.br, FILE.gz) are not listed: the worker keeps FILE decoded."""
    manifest = sw_manifest(built_site)
    files = {p.relative_to(built_site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in built_site.rglob("*") if p.is_file() and p.name != "sw.js" and not is_copy(p)}
    assert {**manifest["files"], **manifest["lazy"]} == files
    copies = {p.relative_to(built_site).as_posix() for p in built_site.rglob("*") if is_copy(p)}
    assert "static/vendor/ort-wasm-simd-threaded.wasm.br" in copies
    assert not copies & {*manifest["files"], *manifest["lazy"]}
    assert all(name.startswith("static/model/timeline/") for name in manifest["lazy"])
    assert re.fullmatch(r"[0-9a-f]{16}", manifest["version"])
    # The query parameters the worker lets through to a cached page: the widget's state keys,
    # which embed.html reads from its query string.
    assert {"text", "layer", "head", "token", "view"} <= set(manifest["params"])


def test_manifest_only_rehashes_an_edited_build(built_site, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(built_site, copy)
    before = sw_manifest(copy)
    (copy / "static" / "site.css").write_text("/* edited */\n", encoding="utf-8")
    subprocess.run([*BUILD, "--out", str(copy), "--manifest-only"],
                   check=True, capture_output=True, cwd=ROOT)
    after = sw_manifest(copy)
    assert after["version"] != before["version"]
    assert after["files"]["static/site.css"] == hashlib.sha256(b"/* edited */\n").hexdigest()
    assert {k: v for k, v in after["files"].items() if k != "static/site.css"} == \
        {k: v for k, v in before["files"].items() if k != "static/site.css"}


# --- The output folder ---------------------------------------------------------------------


def make_targets() -> dict[str, str]:
    """The folders `make site` writes and `make serve` serves, from the Makefile itself."""
    proc = subprocess.run(["make", "-n", "-C", str(ROOT), "serve"], capture_output=True, text=True, check=True)
    out = re.findall(r"-m site_builder\.build --out (\S+)", proc.stdout)
    served = re.findall(r"(?:http\.server .*--directory|-m site_builder\.serve --dir) (\S+)", proc.stdout)
    assert len(out) == 1 and len(served) == 1, proc.stdout
    return {"out": out[0], "served": served[0]}


def test_served_folder_holds_only_the_site_after_pip_install(tmp_path):
    """`pip install .` leaves setuptools' build/bdist.*/ and build/lib/ in the repo; `make serve`
    must not serve them: the site gets a folder of its own, and that folder holds exactly the
    files of the build (each listed in the worker's manifest) and the worker."""
    targets = make_targets()
    assert targets["out"] == targets["served"]
    fake = fake_repo(tmp_path)
    for junk in ("build/bdist.linux-x86_64/wheel/attention_live/x.py", "build/lib/train/model.py"):
        (fake / junk).parent.mkdir(parents=True, exist_ok=True)
        (fake / junk).write_text("# setuptools output\n", encoding="utf-8")
    out = fake / targets["out"]
    assert not out.exists(), f"make site writes into {targets['out']}/, where setuptools builds too"
    subprocess.run([*BUILD, "--out", str(out)], check=True, capture_output=True, cwd=fake)
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and not is_copy(p)}
    assert files == set(sw_manifest(out)["files"]) | set(sw_manifest(out)["lazy"]) | {"sw.js"}
    assert all(f.endswith(".html") and "/" not in f or f.startswith("static/") or f == "sw.js" for f in files)


def test_rebuild_drops_stale_files_and_never_clears_a_foreign_folder(built_site, tmp_path):
    out = tmp_path / "site"
    shutil.copytree(built_site, out)
    (out / "old-page.html").write_text("stale", encoding="utf-8")
    (out / "static" / "gone.js").write_text("stale", encoding="utf-8")
    subprocess.run([*BUILD, "--out", str(out)], check=True, capture_output=True, cwd=ROOT)
    assert not (out / "old-page.html").exists() and not (out / "static" / "gone.js").exists()
    assert "old-page.html" not in sw_manifest(out)["files"]

    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine", encoding="utf-8")
    proc = subprocess.run([*BUILD, "--out", str(foreign)],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    assert proc.returncode != 0 and "not empty" in proc.stderr
    assert [p.name for p in foreign.iterdir()] == ["keep.txt"]


def test_a_failed_build_leaves_the_previous_site_whole(built_site, tmp_path):
    """A meta.json the pages cannot read fails the build with one `error:` line, after the
    static files were already copied; the site built before stays as it was, and nothing of the
    failed build is left beside it."""
    out = tmp_path / "site"
    shutil.copytree(built_site, out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    model = tmp_path / "model"
    shutil.copytree(ROOT / "static" / "model", model)
    meta = json.loads((model / "meta.json").read_text(encoding="utf-8"))
    # A score without its definition: meta.json's schema leaves the scores to the registry
    # (export/head_scores.py), so the folder loads and the pages fail on it.
    del meta["head_definitions"]["induction"]
    (model / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    proc = subprocess.run([*BUILD, "--out", str(out), "--model", str(model)],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the site was not built: cannot render the pages"), lines
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model", "site"]
