"""Gold character lists: PDNC's ``character_info.csv``, a simple CSV (name, aliases) or JSON.

Every task can run with gold characters (from one of these files) or with the ones fabula discovers;
both are `fabula.book.Character` objects, so nothing downstream needs to know which.
"""

from __future__ import annotations

import ast
import csv
import io
import json
from pathlib import Path
from typing import Any

from fabula.book import Character
from fabula.errors import InputError

_GENDERS = {"f": "female", "m": "male", "female": "female", "male": "male", "n": "neutral", "x": "neutral"}


def load_character_list(path: str | Path) -> list[Character]:
    """Read a gold character list (format chosen by content); InputError names the bad row."""
    p = Path(path)
    if not p.is_file():
        raise InputError("no such file" if not p.exists() else "is not a file", p)
    try:
        raw = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError("character list is not UTF-8 text", p) from exc
    if not raw.strip():
        raise InputError("character list is empty", p)
    if raw.lstrip().startswith(("[", "{")):
        return _from_json(raw, p)
    return _from_csv(raw, p)


def _from_json(raw: str, where: Path) -> list[Character]:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON at line {exc.lineno}: {exc.msg}", where) from exc
    if isinstance(data, dict):
        data = data.get("characters", data)
    if isinstance(data, dict):  # {"Nora": ["Miss Fenwick", ...], ...}
        data = [{"name": name, "aliases": aliases} for name, aliases in data.items()]
    if not isinstance(data, list):
        raise InputError("JSON character list must be a list of {name, aliases} objects", where)
    characters = []
    for i, item in enumerate(data):
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"].strip():
            raise InputError(f"entry {i}: needs a non-empty string 'name'", where)
        aliases = item.get("aliases", [])
        if not isinstance(aliases, list | tuple) or not all(isinstance(a, str) for a in aliases):
            raise InputError(f"entry {i} ({item['name']}): 'aliases' must be a list of strings", where)
        characters.append(
            _make(str(item.get("id", i)), item["name"], aliases, item.get("gender"), item.get("category"))
        )
    return characters


def _from_csv(raw: str, where: Path) -> list[Character]:
    reader = csv.DictReader(io.StringIO(raw))
    fields = {f.strip().lower(): f for f in (reader.fieldnames or [])}
    name_key = fields.get("main name") or fields.get("name")
    if name_key is None:
        raise InputError("CSV character list needs a 'Main Name' (PDNC) or 'name' column", where)
    alias_key = fields.get("aliases")
    id_key = fields.get("character id") or fields.get("id")
    gender_key = fields.get("gender")
    category_key = fields.get("category")
    characters: list[Character] = []
    for row_number, row in enumerate(reader, start=2):
        name = (row.get(name_key) or "").strip()
        if not name:
            raise InputError(f"row {row_number}: empty character name", where)
        aliases = _parse_aliases(row.get(alias_key) or "" if alias_key else "", where, row_number)
        cid = (row.get(id_key) or "").strip() if id_key else ""
        characters.append(
            _make(
                cid or str(len(characters)),
                name,
                aliases,
                row.get(gender_key) if gender_key else None,
                row.get(category_key) if category_key else None,
            )
        )
    if not characters:
        raise InputError("character list has a header but no rows", where)
    return characters


def _parse_aliases(value: str, where: Path, row_number: int) -> list[str]:
    value = value.strip()
    if not value:
        return []
    if value[0] in "[{(":
        try:
            parsed: Any = ast.literal_eval(value)  # literals only: PDNC stores Python set literals
        except (ValueError, SyntaxError) as exc:
            raise InputError(f"row {row_number}: cannot parse aliases {value[:60]!r}", where) from exc
        if not isinstance(parsed, set | list | tuple) or not all(isinstance(a, str) for a in parsed):
            raise InputError(f"row {row_number}: aliases must be a list of strings", where)
        return sorted(a.strip() for a in parsed if a.strip())
    separator = ";" if ";" in value else "|" if "|" in value else "="
    return [a.strip() for a in value.split(separator) if a.strip()]


def _make(cid: str, name: str, aliases: Any, gender: Any, category: Any) -> Character:
    names = {a: 0 for a in aliases if a != name}
    gender_value = _GENDERS.get(str(gender or "").strip().lower(), "unknown")
    return Character(
        id=str(cid),
        name=name.strip(),
        aliases=names,
        gender=gender_value,  # type: ignore[arg-type]
        gender_confidence=1.0 if gender_value != "unknown" else 0.0,
        source="gold",
        category=(str(category).strip() or None) if category else None,
    )
