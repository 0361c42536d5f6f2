"""The default view's story, checked on data: at «said», does the default head put most of its
weight on the name nearest before it, on a whole set of sentences of that kind (not just one)?

Each line of the sentence file is `sentence<TAB>expected word`; `#` starts a comment. A sentence
agrees when the key with the largest weight in the head's row at the last «said» is a token of
the expected word's last occurrence before «said» (names like «Dormouse» are several tokens).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def load_sentences(path: Path) -> list[tuple[str, str]]:
    rows = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        sentence, expected = line.split("\t")
        rows.append((sentence.strip(), expected.strip()))
    return rows


def said_row(tokenizer, text: str) -> tuple[list[int], int, list[tuple[int, int]]]:
    """(ids, index of the last «said» token, character span of every token)."""
    enc = tokenizer.encode(text)
    pieces = [tokenizer.id_to_token(i).lstrip("Ġ") for i in enc.ids]
    matches = [i for i, p in enumerate(pieces) if p == "said"]
    if not matches:
        raise ValueError(f"no «said» token in {text!r}")
    return enc.ids, matches[-1], list(enc.offsets)


def expected_keys(text: str, word: str, query: int, offsets: list[tuple[int, int]]) -> set[int]:
    start = text.rfind(word, 0, offsets[query][0])
    if start < 0:
        raise ValueError(f"{word!r} does not occur before «said» in {text!r}")
    end = start + len(word)
    return {i for i, (a, b) in enumerate(offsets[:query]) if a < end and b > start}


def said_evidence(run, tokenizer, sentences: list[tuple[str, str]], layer: int, head: int) -> dict:
    """Agreement of head (layer, head), both 1-based, over the sentence set; `run` as in heads.py."""
    rows = []
    for text, word in sentences:
        ids, q, offsets = said_row(tokenizer, text)
        _, attention = run(np.array([ids], dtype=np.int64), None)
        row = attention[0, layer - 1, head - 1, q, : q + 1]
        top = int(np.argmax(row))
        want = expected_keys(text, word, q, offsets)
        rows.append({"text": text, "expected": word, "agrees": top in want,
                     "weight_on_expected": round(float(row[sorted(want)].sum()), 4),
                     "top_key": tokenizer.decode([ids[top]]).strip(), "top_weight": round(float(row[top]), 4)})
    agree = sum(r["agrees"] for r in rows)
    return {"layer": layer, "head": head, "agree": agree, "total": len(rows),
            "share": round(agree / len(rows), 4), "rows": rows}
