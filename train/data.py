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


def _read_text(path: Path, role: str) -> tuple[bytes, str, bool]:
    """(raw bytes, cleaned text, Gutenberg boilerplate removed?) with one clear error per problem."""
    path = Path(path)
    if not path.exists():
        hint = " (`make corpus` downloads the training texts into corpus/)" if role == "corpus" else ""
        raise UserError(f"{role} {path} does not exist. Pass a UTF-8 text file{hint}.")
    if not path.is_file():
        kind = "a folder" if path.is_dir() else "not a regular file"
        raise UserError(f"{role} {path} is {kind}. Pass a UTF-8 text file.")
    raw = path.read_bytes()
    if not raw.strip():
        raise UserError(f"{role} {path} is empty. Pass a UTF-8 text file with at least {MIN_CHARS} characters.")
    if b"\x00" in raw[:65536]:
        raise UserError(f"{role} {path} looks binary (it contains NUL bytes). Pass a UTF-8 text file.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(
            f"{role} {path} is not valid UTF-8 (byte {exc.start}: {raw[exc.start:exc.start + 1]!r}). "
            "Convert it first, e.g. `iconv -f latin1 -t utf-8`."
        )
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text, stripped = strip_gutenberg(text)
    return raw, text, stripped


def read_corpus(path: Path) -> Corpus:
    path = Path(path)
    raw, text, stripped = _read_text(path, "corpus")
    if len(text) < MIN_CHARS:
        raise UserError(
            f"corpus {path} has {len(text)} characters of text; at least {MIN_CHARS} are needed "
            "to hold out the last 10% for evaluation. Use a longer text."
        )
    return Corpus(name=path.name, sha256=sha256_bytes(raw), text=text, gutenberg_stripped=stripped)


@dataclass(frozen=True)
class Companion:
    """A text that only ever trains: it is never held out and never scored."""

    name: str
    sha256: str
    text: str

    def record(self) -> dict:
        return {"name": self.name, "chars": len(self.text), "sha256": self.sha256}


LEAK_WINDOW = 40  # a shared stretch this long is a copied passage, not a common phrase


def companion_paths(items: list[str]) -> list[Path]:
    """Files as given, and every *.txt inside a folder (sorted, so the order is reproducible)."""
    paths: list[Path] = []
    for item in items:
        item = Path(item)
        if item.is_dir():
            found = sorted(p for p in item.glob("*.txt") if p.is_file())
            if not found:
                raise UserError(f"companion folder {item} holds no *.txt files.")
            paths += found
        else:
            paths.append(item)
    names = [p.name for p in paths]
    if len(set(names)) != len(names):
        raise UserError(f"two companions share a file name ({sorted(n for n in names if names.count(n) > 1)[0]}); "
                        "rename one so the checkpoint can tell them apart.")
    return paths


def read_companions(items: list[str], corpus: Corpus) -> list[Companion]:
    """Read, clean and leak-check every companion against the corpus's held-out part."""
    heldout = corpus.heldout_text
    # Every 40-character stretch of the held-out text: any of them inside a companion means the
    # companion contains the test set, and the held-out figure would measure memory, not skill.
    stretches = {heldout[i : i + LEAK_WINDOW] for i in range(len(heldout) - LEAK_WINDOW + 1)}
    companions = []
    for path in companion_paths(items):
        raw, text, _ = _read_text(path, "companion")
        for i in range(len(text) - LEAK_WINDOW + 1):
            if text[i : i + LEAK_WINDOW] in stretches:
                raise UserError(
                    f"companion {path} contains held-out text of {corpus.name} "
                    f"(at character {i:,}: {text[i : i + LEAK_WINDOW]!r}). Remove that file or that passage: "
                    "training on the held-out part would make its score meaningless.")
        companions.append(Companion(name=path.name, sha256=sha256_bytes(raw), text=text))
    return companions


def training_text(corpus: Corpus, companions: list[Companion]) -> str:
    """The one training stream: the corpus's first 90%, then each companion, blank-line separated."""
    return "\n\n".join([corpus.train_text] + [c.text for c in companions])


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
