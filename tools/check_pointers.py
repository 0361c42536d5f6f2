"""Every pointer a comment or a doc gives a reader resolves: `path/file.ext name` names a file of
the repository that defines `name`, and `module.name` (Python's dotted form) a module that does.

What counts as a pointer (so that prose such as "site_builder/build.py copies" is left alone): a file name
with a source or doc extension followed by one space and a name that is written as code, i.e. in
backticks, or holding a capital or an underscore (`toResult`, `SCHEMA`, `measure_model`), or
called (`reduce(`). A file name alone must name an existing file. A file name is resolved by its
path's tail against the repository's files: "runs.js", "model/runs.js" and the full path all
find static/attention-view/model/runs.js. A tail several files share (induction.js) is resolved
first to the file beside the one that points, then to the one candidate that defines the name;
when more than one defines it the pointer is ambiguous and fails: write more of the path.

Defining a name: in Python a `def`, `class`, assignment or import that binds it (a package
re-exports); in JavaScript a function, class, const/let/var, method, typedef or export; in
Markdown a heading that contains it; in HTML an id, macro or block; in CSS a class or custom
property; in a Makefile a target or variable.

Run from anywhere: `python tools/check_pointers.py [ROOT]`; prints one line per broken pointer
and exits 1 when there is one."""

from __future__ import annotations

import ast
import io
import os
import re
import sys
import tokenize
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Folders that are not the project's sources: tools' installs, builds, runs, the team's texts.
SKIP_DIRS = {".git", ".venv", "node_modules", "_site", "build", "dist", "models", "corpus", "runs",
             ".bench", "__pycache__", ".pytest_cache"}
# Files pointed at but never read for pointers: models and test data.
DATA_DIRS = ("static/model/", "tests/data/")
# Source files a comment or doc names that are no file of the repository: other projects' and
# what a build writes.
ELSEWHERE = {
    "highlight.js",  # a documentation theme's library
    "ort-wasm-simd-threaded.mjs",  # onnxruntime-web's, in node_modules/
    "ort.wasm.min.mjs",  # ... its wasm build's entry
    "ort.wasm.bundle.min.mjs",  # ... the same as one file (bundled into the model's worker)
    "widget.mjs",  # attention_live/frontend/bundle.mjs writes it into the wheel's _assets/
    "many.html",  # bench/many_views.py writes it into the built site
    "x.mjs",  # a placeholder in an example path
}
SOURCE_EXTS = {".py", ".js", ".mjs", ".md", ".html", ".css"}
# Files a pointer may name; a name after a data file (meta.json `heads`) is a field, not code.
POINTED_EXTS = SOURCE_EXTS | {".json", ".toml", ".txt", ".onnx", ".pt", ".yml", ".ipynb"}
EXT = "|".join(sorted(e[1:] for e in POINTED_EXTS))
FILE = rf"""(?<![\w./@:"'-])((?:\.\./|\.\.?/)?[\w@-]+(?:[./][\w@-]+)*\.(?:{EXT}))(?![\w])"""
NAME = r"[A-Za-z_$][\w$]*"
POINTER = re.compile(rf"{FILE}(?:[,:]? (`{NAME}`|{NAME}\(?)(?![\w$])(?!\.\w))?")
DOTTED = re.compile(rf"(?<![\w./`-])`?((?:[a-z_][a-z0-9_]*\.)+)({NAME})")


@dataclass(frozen=True)
class Broken:
    where: str  # path:line of the pointer
    pointer: str
    why: str

    def __str__(self) -> str:
        return f"{self.where}: {self.pointer!r}: {self.why}"


def files(root: Path) -> list[str]:
    out = []
    for folder, dirs, names in os.walk(root):
        rel = Path(folder).relative_to(root).as_posix()
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        out += [name if rel == "." else f"{rel}/{name}" for name in names]
    return sorted(out)


def python_prose(text: str) -> list[tuple[int, str]]:
    """Comments and docstrings of a Python file (not its other strings: they may be code)."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                out.append((tok.start[0], tok.string))
        tree = ast.parse(text)
    except (tokenize.TokenError, SyntaxError):
        return [(1, text)]
    lines = text.splitlines(keepends=True)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.append((first.lineno, "".join(lines[first.lineno - 1:first.end_lineno])))
    return out


JS_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\\\w\"'`])//[^\n]*", re.S)


def js_prose(text: str) -> list[tuple[int, str]]:
    return [(text.count("\n", 0, m.start()) + 1, m.group()) for m in JS_COMMENT.finditer(text)]


@cache  # a file's text is read again only when it changed (the test plants one line at a time)
def prose(rel: str, text: str) -> list[tuple[int, str]]:
    if rel.endswith(".py"):
        return python_prose(text)
    if rel.endswith((".js", ".mjs", ".css")):
        return js_prose(text)
    if rel.endswith(".html"):
        return [(text.count("\n", 0, m.start()) + 1, m.group())
                for m in re.finditer(r"\{#.*?#\}|<!--.*?-->", text, re.S)]
    if rel == "Makefile" or rel.endswith("/Makefile"):
        return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.lstrip().startswith("#")]
    # Markdown: all of it but fenced code, which is an example to type, not a pointer to follow
    return [(1, re.sub(r"^```.*?^```", lambda m: "\n" * m.group().count("\n"), text, flags=re.S | re.M))]


def definers(ext: str, name: str, package: bool = False) -> list[re.Pattern]:
    """What defines `name` in a file of `ext`; a package's __init__.py also by importing it."""
    n = re.escape(name)
    if ext == ".py":
        return [re.compile(rf"^\s*(?:async\s+)?(?:def|class)\s+{n}\b", re.M),
                re.compile(rf"^\s*(?:[\w.]+\s*,\s*)*{n}\s*(?::[^=\n]*)?=(?!=)", re.M),
                re.compile(rf"^\s*(?:from\s+\S+\s+)?import\s+[^#\n]*\b{n}\b", re.M)] if package else [
                re.compile(rf"^\s*(?:async\s+)?(?:def|class)\s+{n}\b", re.M),
                re.compile(rf"^\s*(?:[\w.]+\s*,\s*)*{n}\s*(?::[^=\n]*)?=(?!=)", re.M)]
    if ext in (".js", ".mjs"):
        return [re.compile(rf"\b(?:function\*?|class|const|let|var)\s+{n}\b"),
                re.compile(rf"^\s*(?:static\s+|async\s+|get\s+|set\s+|#)*{n}\s*\(", re.M),
                re.compile(rf"@(?:typedef|callback)\s+(?:\{{.*?\}}\s+)?{n}\b"),
                re.compile(rf"\bexport\s*\{{[^}}]*\b{n}\b"),
                re.compile(rf"(?:const|let|var)\s*\{{[^}}]*\b{n}\b[^}}]*\}}\s*="),
                re.compile(rf"^\s*{n}\s*:", re.M)]
    if ext == ".md":
        return [re.compile(rf"^#+ .*{n}", re.M | re.I)]
    if ext == ".html":
        return [re.compile(rf"id=\"{n}\"|\{{%-?\s*(?:macro|block)\s+{n}\b")]
    if ext == ".css":
        return [re.compile(rf"\.{n}\b|--{n}\b")]
    if ext == "":  # Makefile
        return [re.compile(rf"^{n}\s*(?::|\?=|:=|=)", re.M)]
    return []


class Tree:
    def __init__(self, root: Path):
        self.root = root
        self.files = files(root)

    @cache  # noqa: B019 - one Tree per check
    def text(self, rel: str) -> str:
        try:
            return (self.root / rel).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            return ""

    def candidates(self, ref: str, home: str) -> list[str]:
        if ref.startswith(("./", "../")):
            # Relative to the file that points (an import) or to the repository (a command).
            for base in (Path(home).parent.as_posix(), ""):
                rel = normal(f"{base}/{ref}")
                if rel is None:
                    return ["<outside>"]  # ../shared/...: the team's files, not the repository's
                if rel in self.files:
                    return [rel]
            return []
        return [f for f in self.files if f == ref or f.endswith("/" + ref)]

    def defines(self, rel: str, name: str) -> bool:
        ext = Path(rel).suffix if Path(rel).name != "Makefile" else ""
        return any(p.search(self.text(rel)) for p in definers(ext, name, rel.endswith("__init__.py")))

    def resolve(self, ref: str, name: str | None, home: str) -> str | None:
        """None when the pointer resolves, else why not."""
        found = self.candidates(ref, home)
        if found == ["<outside>"]:
            return None  # outside the repository (../shared/...): not ours to check
        if not found and Path(ref).name in ELSEWHERE:
            return None
        if not found:
            # A data file's name (meta.json, book.txt) may be the reader's own or one a build
            # writes; a source file's must be here.
            placeholder = any(p.isupper() or p == "path" for p in Path(ref).with_suffix("").as_posix().split("/"))
            return None if Path(ref).suffix not in SOURCE_EXTS or placeholder else "no such file in the repository"
        if name is None or Path(ref).suffix not in SOURCE_EXTS:
            return None
        beside = [f for f in found if Path(f).parent == Path(home).parent]
        if len(found) > 1 and len(beside) == 1:
            found = beside
        defining = [f for f in found if self.defines(f, name)]
        if len(defining) == 1 or (defining and len(found) == 1):
            return None
        if not defining:
            return f"{' / '.join(found)} defines no {name}"
        return f"ambiguous: {', '.join(defining)} all define {name}; write more of the path"

    def submodule(self, rel: str, name: str) -> bool:
        folder = Path(rel).parent.as_posix()
        return rel.endswith("__init__.py") and (f"{folder}/{name}.py" in self.files or f"{folder}/{name}/__init__.py" in self.files)

    def module(self, dotted: str) -> list[str]:
        """The Python files a dotted module name (`attention_live.feeds`, `to_onnx`) can be."""
        path = dotted.replace(".", "/")
        if "/" in path:
            return [f for f in (f"{path}.py", f"{path}/__init__.py") if f in self.files]
        return [f for f in self.files if f.endswith(("/" + path + ".py", "/" + path + "/__init__.py"))
                or f in (path + ".py", path + "/__init__.py")]


def normal(path: str) -> str | None:
    """`path` with its . and .. folded, or None when it leaves the repository."""
    parts: list[str] = []
    for part in path.split("/"):
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part not in (".", ""):
            parts.append(part)
    return "/".join(parts)


def codeish(raw: str) -> bool:
    """A name written as code: in backticks, called, or with an underscore or an inner capital
    (`Result` needs its backticks: a capitalised word may start a sentence)."""
    return raw.startswith("`") or raw.endswith("(") or "_" in raw or bool(re.search(r"[A-Z]", raw[1:]))


def check(root: Path = ROOT) -> list[Broken]:
    tree = Tree(root)
    broken = []
    for rel in tree.files:
        if rel.startswith(DATA_DIRS) or Path(rel).suffix not in SOURCE_EXTS and Path(rel).name != "Makefile":
            continue
        for line0, chunk in prose(rel, tree.text(rel)):
            for m in POINTER.finditer(chunk):
                ref, raw = m.group(1), m.group(2) or ""
                before = chunk[max(0, m.start() - 12):m.start()]
                if "://" in before or ref.startswith("@") or re.search(r"\b[Cc]reate `?$", before):
                    continue  # a URL, a package name, or a file a recipe has the reader create
                name = raw.strip("`(") if raw and codeish(raw) else None
                why = tree.resolve(ref, name, rel)
                if why:
                    line = line0 + chunk.count("\n", 0, m.start())
                    broken.append(Broken(f"{rel}:{line}", m.group(0) if name else ref, why))
            if not rel.endswith((".py", ".md")):
                continue
            for m in DOTTED.finditer(chunk):
                mod, name = m.group(1)[:-1], m.group(2)
                if name in {e[1:] for e in POINTED_EXTS} or not codeish(name) and not m.group(0).startswith("`"):
                    continue
                if "." not in mod and "_" not in mod:
                    continue  # `circuit.stripe` is as likely a meta.json field or a variable's attribute
                found = tree.module(mod)
                if len(found) != 1 or tree.defines(found[0], name) or tree.submodule(found[0], name):
                    continue  # not one module of ours (a variable, a library), or it resolves
                line = line0 + chunk.count("\n", 0, m.start())
                broken.append(Broken(f"{rel}:{line}", f"{mod}.{name}", f"{found[0]} defines no {name}"))
    return broken


def main(argv: list[str]) -> int:
    root = Path(argv[0]).resolve() if argv else ROOT
    broken = check(root)
    for b in broken:
        print(b, file=sys.stderr)
    if broken:
        print(f"error: {len(broken)} pointer(s) name no file or no definition (tools/check_pointers.py says what counts)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
