"""`python -m train.download [--out corpus]`: fetch the training texts from Project Gutenberg by
number and clean them the way `../shared/corpus/MANIFEST.md` describes, for anyone without a copy.

alice.txt is kept as distributed (the reader strips Gutenberg's header and footer itself);
companions lose header, footer and credit lines, and get ASCII quotes, dashes and ellipses, so
that they read like alice.txt. A fresh download may differ from the team's copies in a few lines
of front matter, which moves held-out figures only slightly.
"""

from __future__ import annotations

import argparse
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path

from tqdm import tqdm

from train.data import strip_gutenberg
from train.files import CommandLine, UserError, atomic_write_text, ensure_writable_dir

URL = "https://www.gutenberg.org/cache/epub/{n}/pg{n}.txt"
ALICE = ("alice.txt", 11)
COMPANIONS = [  # (file name, Gutenberg number), as in MANIFEST.md
    ("lookingglass.txt", 12), ("sylvie_bruno.txt", 620), ("snark.txt", 13), ("tangled_tale.txt", 29042),
    ("oz.txt", 55), ("willows.txt", 289), ("peterpan.txt", 16), ("jungle.txt", 236), ("grimm.txt", 2591),
    ("blackbeauty.txt", 271), ("pinocchio.txt", 500),
]
TIMEOUT = 30  # seconds without an answer before a book counts as unreachable

_ASCII = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "\u2014": "--",
                        "\u2013": "-", "\u2026": "...", "\u00a0": " "})
_CREDITS = re.compile(r"^(Produced by|This (e|E)book was produced by|E-?text prepared by|Transcribed from).*?(\n\n|\Z)",
                      re.MULTILINE | re.DOTALL)


def clean_companion(raw: str) -> str:
    text = raw.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text, _ = strip_gutenberg(text)
    text = _CREDITS.sub("", text)
    return text.translate(_ASCII).strip() + "\n"


def fetch(number: int) -> str:
    request = urllib.request.Request(URL.format(n=number), headers={"User-Agent": "attention-live corpus fetch"})
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
        return response.read().decode("utf-8-sig")


def download(out: Path) -> list[Path]:
    created = [d for d in (out, out / "companions") if not d.exists()]
    ensure_writable_dir(out / "companions")
    books = [(out / ALICE[0], ALICE[1], False)] + [(out / "companions" / n, g, True) for n, g in COMPANIONS]
    written = []
    for path, number, is_companion in tqdm(books, desc="downloading books", unit="book"):
        if path.exists():
            continue  # an interrupted download resumes where it stopped
        try:
            raw = fetch(number)
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            for folder in reversed(created):  # leave nothing behind that was not there before
                if folder.is_dir() and not any(folder.iterdir()):
                    folder.rmdir()
            raise UserError(
                f"cannot download Gutenberg #{number} ({reason}). Without internet, place the files in {out}/ "
                f"(alice.txt and companions/*.txt, see README) or pass CORPUS=/COMPANIONS= to make model.")
        atomic_write_text(path, clean_companion(raw) if is_companion else raw)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    p = CommandLine(prog="python -m train.download", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="corpus", help="folder to fill (git-ignored; default: %(default)s)")
    ns = p.parse_args(argv)
    try:
        written = download(Path(ns.out))
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{ns.out}/: {len(written)} books downloaded, {1 + len(COMPANIONS) - len(written)} already there")
    return 0


if __name__ == "__main__":
    sys.exit(main())
