"""A recipe as a doc writes it, for the tests that follow one literally: its numbered steps, and
its code blocks, each of which names on its first line (as a comment) the file it goes into and
the name in that file it goes at."""

from __future__ import annotations

import re
from pathlib import Path


def recipe(doc: Path, heading: str, language: str) -> tuple[list[str], list[tuple[str, str, list[str]]]]:
    """The steps under `heading` (up to the next heading of its level or above), one string each,
    and its ```language blocks as (file, name, the block's lines after the first)."""
    lines = doc.read_text(encoding="utf-8").split(heading + "\n", 1)[1].splitlines()
    level, fenced, end = len(heading.split(" ", 1)[0]), False, len(lines)
    for i, line in enumerate(lines):  # a comment line in a code block is no heading
        fenced ^= line.startswith("```")
        if not fenced and re.match(rf"#{{1,{level}}} ", line):
            end = i
            break
    section = "\n".join(lines[:end])
    prose = re.sub(r"```.*?```", "", section, flags=re.S)
    steps = re.findall(r"^\d+\. (.*?)(?=^\d+\. |\Z)", prose, re.S | re.M)
    blocks = []
    for block in re.findall(rf"```{language}\n(.*?)```", section, re.S):
        head, *body = block.splitlines()
        path, name = re.sub(r"^(//|#) ", "", head).split()
        blocks.append((path, name, body))
    return [" ".join(s.split()) for s in steps], blocks
