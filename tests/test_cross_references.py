"""Every cross-reference the pages and the documents make resolves: a section of the README or
of a doc named in quotes is a heading there, a `docs/…` file exists, a Markdown link's file and
#anchor exist, and a path in backticks (or <code>) under one of the repository's own folders
names a file or folder that is there. No network, no build: the files as committed."""

from __future__ import annotations

import re
import subprocess

import pytest

from helpers import ROOT

DOCS = sorted((ROOT / "docs").glob("*.md"))
TEMPLATES = sorted((ROOT / "site_builder" / "templates").glob("*.html"))
SOURCES = [ROOT / "README.md", *DOCS, *TEMPLATES, *sorted((ROOT / "site_builder").glob("*.py"))]

# "README's section “X”", "README, under “X”", "README (“X”, “Y”)", "docs/model.md, section “X”".
DOCUMENT = r"(?P<doc>README(?:\.md)?|docs/[\w-]+\.md)"
CITED = re.compile(DOCUMENT + r"(?:</code>|`)?(?:'s)?(?P<tail>[^.;:]{0,30}?(?:section|under|\()\s*(?:[“\"][^”\"\n]{2,80}[”\"],?\s*)+)")
QUOTED = re.compile(r"[“\"]([^”\"\n]{2,80})[”\"]")
PATH = re.compile(r"(?:`|<code>)((?:[\w.@-]+)(?:/[\w.@*-]+)+/?)(?:`|</code>)")
LINK = re.compile(r"\]\(([^)\s]+)\)")
DOC_PATH = re.compile(r"(?<![\w/.])docs/[\w-]+\.md")


def tracked_tops() -> set[str]:
    """The repository's own top-level entries (git-ignored folders such as models/ are no reference)."""
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return {line.split("/")[0] for line in out.splitlines() if "/" in line}


def headings(doc: str) -> set[str]:
    text = (ROOT / doc).read_text(encoding="utf-8")
    return {m.group(1).strip() for m in re.finditer(r"^#{1,6}\s+(.+?)\s*$", text, re.M)}


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def text_of(path) -> str:
    return path.read_text(encoding="utf-8")


def section_references(path) -> list[tuple[str, str]]:
    """(document, section title) for every section `path` cites by name."""
    text = re.sub(r"\s+", " ", text_of(path))
    out = []
    for m in CITED.finditer(text):
        doc = "README.md" if m.group("doc").startswith("README") else m.group("doc")
        out += [(doc, title) for title in QUOTED.findall(m.group("tail"))]
    return out


def created_here(text: str, path: str) -> bool:
    """A worked example that tells the reader to create the file."""
    return re.search(r"Create (?:`|<code>)" + re.escape(path), text) is not None


def broken(path) -> list[str]:
    text, rel = text_of(path), (path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name)
    problems = []
    for doc, title in section_references(path):
        if not (ROOT / doc).is_file():
            problems.append(f"{rel} cites {doc}, which does not exist")
        elif title not in headings(doc):
            problems.append(f"{rel} cites the section “{title}” of {doc}, which has no such heading")
    for doc in set(DOC_PATH.findall(text)):
        if not (ROOT / doc).is_file():
            problems.append(f"{rel} names {doc}, which does not exist")
    tops = tracked_tops()
    for ref in set(PATH.findall(text)):
        if ref.split("/")[0] not in tops or created_here(text, ref):
            continue
        if not (list(ROOT.glob(ref.rstrip("/"))) if "*" in ref else (ROOT / ref).exists()):
            problems.append(f"{rel} names {ref}, which does not exist")
    if path.suffix == ".md":
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue  # a URL: nothing of this repository
            file, _, fragment = target.partition("#")
            where = (path.parent / file) if file else path
            if not where.exists():
                problems.append(f"{rel} links {target}, whose file does not exist")
            elif fragment and where.suffix == ".md" and fragment not in {anchor(h) for h in headings(where.relative_to(ROOT))}:
                problems.append(f"{rel} links {target}, whose #anchor is no heading there")
    return problems


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_reference_resolves(path):
    assert broken(path) == []


def test_the_scan_finds_the_references_it_checks():
    """The patterns still match what the documents write (a pattern that matched nothing would
    pass every file)."""
    cited = {ref for path in SOURCES for ref in section_references(path)}
    assert ("README.md", "Embed it in a course chapter") in cited
    assert any(doc == "README.md" and "own text" in title for doc, title in cited)  # the model card's retrain pointer
    assert sum(len(PATH.findall(text_of(p))) for p in SOURCES) > 50


def test_a_broken_reference_is_reported(tmp_path):
    """The checker itself: a made-up section, doc and path are each reported."""
    fake = tmp_path / "page.html"
    fake.write_text("See the README, under “No such section”; and docs/nothing.md, and <code>export/nothing.py</code>.",
                    encoding="utf-8")
    problems = " ".join(broken(fake))
    assert "No such section" in problems and "docs/nothing.md" in problems and "export/nothing.py" in problems
