"""What is written from meta.json's one definition, attention_live/meta.schema.json, never by hand:
the widget's list of required fields (static/attention-view/model/meta-fields.js, read by
model/meta-check.js), its `Meta` typedef (static/attention-view/meta-type.js) and the field table
of docs/model-files.md (between two marker comments).

    python tools/meta_schema_outputs.py           # rewrite all three (make schema)
    python tools/meta_schema_outputs.py --check   # exit 1 naming each one that is out of date"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_PATH = ROOT / "attention_live" / "meta.schema.json"
FIELDS_JS = ROOT / "static" / "attention-view" / "model" / "meta-fields.js"
META_TYPE = ROOT / "static" / "attention-view" / "meta-type.js"
DOC = ROOT / "docs" / "model-files.md"
BEGIN = "<!-- meta.json fields: written by `python tools/meta_schema_outputs.py` from attention_live/meta.schema.json -->"
END = "<!-- end of meta.json fields -->"
HEADER = """// @ts-check
// Written by `make schema` (tools/meta_schema_outputs.py) from meta.json's schema,
// attention_live/meta.schema.json: do not edit; tests/test_meta_schema.py fails when it is out of date.
"""


def resolve(schema: dict, root: dict) -> dict:
    while "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        schema = {**root["$defs"][name], **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def types_of(schema: dict) -> list[str]:
    types = schema.get("type", [])
    return [types] if isinstance(types, str) else list(types)


def walk(schema: dict, root: dict, keys: tuple = ()):
    """(keys, schema, required) for every field below `schema`, depth first; "[]" in keys is
    every entry of a list."""
    schema = resolve(schema, root)
    required = set(schema.get("required", []))
    for key, child in schema.get("properties", {}).items():
        child = resolve(child, root)
        yield (*keys, key), child, key in required
        yield from walk(child, root, (*keys, key))
    if isinstance(schema.get("items"), dict):
        yield from walk(schema["items"], root, (*keys, "[]"))


def required_paths(root: dict) -> list[list[str]]:
    """Every field that must be there whenever its parent is (a null parent holds nothing)."""
    out, optional = [], []
    for keys, _, required in walk(root, root):
        if not required or any(keys[: len(o)] == o for o in optional):
            if not required:
                optional.append(keys)
            continue
        out.append(list(keys))
    return out


def shown(keys) -> str:
    text = ""
    for key in keys:
        if key == "[]":
            text += "[]"
        elif key.replace("_", "a").isalnum() and not key[0].isdigit():
            text += f".{key}" if text else key
        else:
            text += f'["{key}"]'
    return text


def fields_js(root: dict) -> str:
    version = root["properties"]["format_version"]["enum"][0]
    rows = "\n".join(f"  {json.dumps(keys)}," for keys in required_paths(root))
    return (f"{HEADER}\n/** The only format_version this widget reads. */\nexport const FORMAT_VERSION = {version};\n\n"
            "/**\n * Every field meta.json must hold, as its keys from the top (\"[]\": every entry of a list).\n"
            " * @type {string[][]}\n */\nexport const REQUIRED = [\n" + rows + "\n];\n")


def ts_type(schema: dict, root: dict, whole: str = "number") -> str:
    """The JSDoc type of `schema`; `whole` is what an integer is called (the docs say "integer")."""
    schema = resolve(schema, root)
    if "enum" in schema:
        return "|".join(json.dumps(v) for v in schema["enum"])
    parts = []
    for name in types_of(schema) or ["any"]:
        if name == "integer":
            parts.append(whole)
        elif name == "number":
            parts.append("number")
        elif name in ("string", "boolean", "null", "any"):
            parts.append(name)
        elif name == "array":
            item = ts_type(schema["items"], root) if "items" in schema else "any"
            parts.append(f"({item})[]" if "|" in item else f"{item}[]")
        else:
            parts.append(object_type(schema, root))
    return "|".join(parts)


def object_type(schema: dict, root: dict) -> str:
    extra = schema.get("additionalProperties", True)
    rest = f"Object<string, {ts_type(extra, root)}>" if isinstance(extra, dict) else "Object<string, any>"
    props = schema.get("properties", {})
    if not props:
        return rest
    required = set(schema.get("required", []))
    fields = ", ".join(f"{json.dumps(k) if not k.replace('_', 'a').isalnum() else k}{'' if k in required else '?'}: "
                       f"{ts_type(v, root)}" for k, v in props.items())
    return "{" + fields + "}" + (f" & {rest}" if isinstance(extra, dict) else "")


def meta_type(root: dict) -> str:
    lines = [f"{HEADER}", "/**", f" * meta.json: {root['description']}",
             " * @typedef {Object} Meta"]
    required = set(root["required"])
    for key, child in root["properties"].items():
        name = key if key in required else f"[{key}]"
        lines.append(f" * @property {{{ts_type(child, root)}}} {name}  {resolve(child, root)['description']}")
    return "\n".join(lines) + "\n */\n\nexport {};\n"


def doc_table(root: dict) -> str:
    rows = ["| field | type | required | what it is |", "|---|---|---|---|"]
    for keys, schema, required in walk(root, root):
        kind = ts_type(schema, root, "integer") if "properties" not in schema else " or ".join(types_of(schema))
        kind = kind.replace("|", " or ")
        rows.append(f"| `{shown(keys)}` | {kind} | {'yes' if required else ''} | {schema.get('description', '')} |")
    return "\n".join(rows)


def doc_text(root: dict, doc: str) -> str:
    head, found, rest = doc.partition(BEGIN)
    if not found or END not in rest:
        raise SystemExit(f"{DOC} has no block between {BEGIN!r} and {END!r}")
    return f"{head}{BEGIN}\n{doc_table(root)}\n{END}{rest.split(END, 1)[1]}"


def outputs() -> dict[Path, str]:
    root = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return {FIELDS_JS: fields_js(root), META_TYPE: meta_type(root), DOC: doc_text(root, DOC.read_text(encoding="utf-8"))}


def main(argv: list[str]) -> int:
    stale = [path for path, text in outputs().items() if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date: run `make schema`")
        return 1 if stale else 0
    for path, text in outputs().items():
        if path in stale:
            path.with_name(path.name + ".tmp").write_text(text, encoding="utf-8")
            path.with_name(path.name + ".tmp").replace(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
