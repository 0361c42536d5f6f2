"""Corpus reading, cleaning, the train/held-out split and the compressor baselines."""

from __future__ import annotations

import bz2
import gzip
import lzma
import math
import re
from dataclasses import dataclass
from pathlib import Path

from train.files import UserError, sha256_bytes

HELDOUT_FRACTION = 0.1  # the last 10% of the text, contiguous: no leakage through overlapping windows
MIN_CHARS = 1000  # below this a 10% held-out part is too short to measure anything

_START = re.compile(r"^\*\*\* ?START OF (THE|THIS) PROJECT GUTENBERG.*$", re.MULTILINE)
_END = re.compile(r"^\*\*\* ?END OF (THE|THIS) PROJECT GUTENBERG.*$", re.MULTILINE)
_END_NOTICE = re.compile(r"^End of (the )?Project Gutenberg.*$", re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class Corpus:
    name: str
    sha256: str  # of the file's bytes as read, so a checkpoint names exactly what it saw
    text: str  # cleaned text: no BOM, LF line endings, no Gutenberg boilerplate
    gutenberg_stripped: bool

    @property
    def split_at(self) -> int:
        return len(self.text) - int(len(self.text) * HELDOUT_FRACTION)

    @property
    def train_text(self) -> str:
        return self.text[: self.split_at]

    @property
    def heldout_text(self) -> str:
        return self.text[self.split_at :]


def strip_gutenberg(text: str) -> tuple[str, bool]:
    start, end = _START.search(text), _END.search(text)
    if not (start and end and start.end() < end.start()):
        return text, False
    body = text[start.end() : end.start()]
    notice = _END_NOTICE.search(body)
    if notice:
        body = body[: notice.start()]
    return body.strip() + "\n", True


def read_corpus(path: Path) -> Corpus:
    path = Path(path)
    if not path.is_file():
        raise UserError(f"corpus {path} does not exist. Pass --corpus with a UTF-8 text file.")
    raw = path.read_bytes()
    if not raw.strip():
        raise UserError(f"corpus {path} is empty. Pass a UTF-8 text file with at least {MIN_CHARS} characters.")
    if b"\x00" in raw[:65536]:
        raise UserError(f"corpus {path} looks binary (it contains NUL bytes). Pass a UTF-8 text file.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(
            f"corpus {path} is not valid UTF-8 (byte {exc.start}: {raw[exc.start:exc.start + 1]!r}). "
            "Convert it first, e.g. `iconv -f latin1 -t utf-8`."
        )
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text, stripped = strip_gutenberg(text)
    if len(text) < MIN_CHARS:
        raise UserError(
            f"corpus {path} has {len(text)} characters of text; at least {MIN_CHARS} are needed "
            "to hold out the last 10% for evaluation. Use a longer text."
        )
    return Corpus(name=path.name, sha256=sha256_bytes(raw), text=text, gutenberg_stripped=stripped)


def compressor_baselines(corpus: Corpus) -> dict[str, float]:
    """Bits per held-out character for classic compressors that have already seen the first 90%.

    Computed as size(all) - size(first 90%), the same conditioning the model gets.
    """
    whole = corpus.text.encode("utf-8")
    head = corpus.train_text.encode("utf-8")
    codecs = {
        "gzip-9": lambda b: gzip.compress(b, compresslevel=9, mtime=0),
        "xz": lambda b: lzma.compress(b, preset=9 | lzma.PRESET_EXTREME),
        "bzip2": lambda b: bz2.compress(b, compresslevel=9),
    }
    n = len(corpus.heldout_text)
    return {name: 8 * (len(fn(whole)) - len(fn(head))) / n for name, fn in codecs.items()}


def nats_to_bpc(total_nats: float, n_chars: int) -> float:
    return total_nats / math.log(2) / n_chars
