"""What each Makefile target would do on a fresh clone (`make -n` in a copy without .venv or
node_modules: nothing runs): `make serve` installs the `site` group and the runtime files only
(and sends the compressed copies unless COMPRESS=0), `make check-host` installs nothing,
`make model` checks export's inputs before it trains, retrains go to models/NAME, and only
`make ship` writes the shipped model."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from conftest import ROOT


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    fresh = tmp_path_factory.mktemp("clone")
    for name in ("Makefile", "pyproject.toml", "package.json", "package-lock.json"):
        shutil.copy2(ROOT / name, fresh / name)
    return fresh


def dry_run(clone, *args) -> list[str]:
    # --no-print-directory: under `make test` this make is a sub-make, which would otherwise
    # print "Entering directory" lines around the commands.
    proc = subprocess.run(["make", "-n", "--no-print-directory", *args], cwd=clone, capture_output=True,
                          text=True, check=True)
    return proc.stdout.splitlines()


def test_serve_installs_the_site_group_and_the_runtime_files_only(clone):
    lines = dry_run(clone, "serve")
    text = "\n".join(lines)
    assert re.search(r"pip install .*--group site\b", text)
    assert "--group train" not in text and "--group test" not in text
    assert "npm ci" not in text and "-m site_builder.runtime_files" in text
    assert any("-m site_builder.serve --dir _site" in line for line in lines)  # the site, nothing else


def test_serve_on_ones_own_model(clone):
    assert any("-m site_builder.build --out _site --model models/book" in line for line in dry_run(clone, "serve", "MODEL=models/book"))


def test_serve_sends_the_compressed_copies_unless_compress_is_0(clone):
    serve = [line for line in dry_run(clone, "serve") if "-m site_builder.serve" in line]
    plain = [line for line in dry_run(clone, "serve", "COMPRESS=0") if "-m site_builder.serve" in line]
    assert len(serve) == len(plain) == 1
    assert "--no-compress" not in serve[0] and plain[0].endswith("--no-compress")


def test_check_host_needs_nothing_installed(clone):
    lines = dry_run(clone, "check-host", "URL=https://example.org/course/")
    assert lines == ['python3 -m site_builder.check_host "https://example.org/course/"']


def test_test_installs_everything(clone):
    text = "\n".join(dry_run(clone, "test"))
    assert re.search(r"--group test\b", text) and "npm ci" in text


def test_model_checks_before_it_trains_and_writes_models_name(clone):
    lines = dry_run(clone, "model", "CORPUS=texts/book.txt")
    check = next(i for i, line in enumerate(lines) if "-m export --check" in line)
    train = next(i for i, line in enumerate(lines) if "-m train " in line and "--check" not in line)
    assert check < train
    assert "--out models/book.pt" in lines[train] and "--companions" not in lines[train]
    assert "--out models/book " in lines[check] + " " and "--corpus-description" not in lines[check]
    assert not [line for line in lines if "static/model" in line or "checkpoints/" in line]


def test_only_ship_writes_the_shipped_model(clone):
    lines = dry_run(clone, "ship", "NAME=book")
    assert any("-m export.ship --model models/book --checkpoint models/book.pt --to static/model "
               "--checkpoint-to checkpoints/alice.pt" in line for line in lines)
