"""meta.json checked against its one definition, attention_live/meta.schema.json (JSON Schema,
draft 2020-12): export before it writes a folder, site_builder/build.py and `Model` before they read
one. The first field that is wrong is named ("meta.json has no default.top_key_text"), and a file
of another format_version is refused in one sentence before anything else is looked at.

Standard library only, and importing nothing from the package: site_builder/build.py imports it
where only jinja2 is installed (the `jsonschema` package would add attrs,
referencing and the compiled rpds-py to the site's and the wheel's dependencies for the handful
of keywords the schema uses). Those keywords are the whole of what this validator knows: type,
enum, minimum, pattern, required, properties, additionalProperties, items, and $ref to $defs;
tests/test_meta_schema.py fails if the schema uses any other."""

from __future__ import annotations

import json
import re
from pathlib import Path

SCHEMA_PATH = Path(__file__).resolve().parent / "meta.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
FORMAT_VERSION = SCHEMA["properties"]["format_version"]["enum"][0]
KEYWORDS = {"$schema", "$id", "$defs", "$ref", "title", "description", "type", "enum", "minimum", "pattern",
            "required", "properties", "additionalProperties", "items"}
TYPE_NAMES = {"object": "an object", "array": "a list", "string": "a string", "integer": "a whole number",
              "number": "a number", "boolean": "true or false", "null": "null"}


class MetaInvalid(ValueError):
    """A meta.json that is not what meta.schema.json defines; the message names the first wrong field."""


def _is(value, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    kinds = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
    return isinstance(value, kinds[name])


def _shown(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "\u2026"


def _child(path: str, key) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return f'{path}["{key}"]'
    return f"{path}.{key}" if path else key


def _resolve(schema: dict) -> dict:
    while "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        schema = {**SCHEMA["$defs"][name], **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _check(value, schema: dict, path: str) -> None:
    schema = _resolve(schema)
    where = path or "meta.json"
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(_is(value, name) for name in types):
            what = " or ".join(TYPE_NAMES[name] for name in types)
            raise MetaInvalid(f"meta.json's {where} must be {what}, not {_shown(value)}")
    if "enum" in schema and value not in schema["enum"]:
        raise MetaInvalid(f"meta.json's {where} must be one of {', '.join(map(_shown, schema['enum']))}, not {_shown(value)}")
    if "minimum" in schema and _is(value, "number") and value < schema["minimum"]:
        raise MetaInvalid(f"meta.json's {where} must be at least {schema['minimum']}, not {_shown(value)}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        raise MetaInvalid(f"meta.json's {where} must match {schema['pattern']}, not {_shown(value)}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                raise MetaInvalid(f"meta.json has no {_child(path, key)}")
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                _check(item, properties[key], _child(path, key))
            elif extra is False:
                raise MetaInvalid(f"meta.json's {where} has a field no reader knows: {key}")
            elif isinstance(extra, dict):
                _check(item, extra, _child(path, key))
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            _check(item, schema["items"], _child(path, index))


def check_version(meta) -> None:
    """One sentence for a meta.json of another format: whatever else is wrong with it follows from that."""
    version = meta.get("format_version") if isinstance(meta, dict) else None
    if version != FORMAT_VERSION:
        said = "no format_version" if version is None else f"format_version {_shown(version)}"
        raise MetaInvalid(f"meta.json has {said}, and this version reads format {FORMAT_VERSION} only: "
                          "export the model again with `python -m export`")


def check_meta(meta) -> dict:
    """`meta` itself when it is what meta.schema.json defines; else MetaInvalid naming the first wrong field."""
    check_version(meta)
    _check(meta, SCHEMA, "")
    return meta
