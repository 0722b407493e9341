"""Validation against the JSON schemas in schemas/, the contracts between scripts and agents."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # jsonschema loads on the first validation only
    from jsonschema.protocols import Validator
    from referencing import Registry

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "schemas"


@cache
def _registry() -> Registry[Any]:
    from referencing import Registry, Resource

    resources = []
    for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        resources.append((path.name, Resource.from_contents(schema)))
    return Registry().with_resources(resources)


@cache
def _validator(name: str) -> Validator:
    from jsonschema import Draft202012Validator

    schema = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema, registry=_registry())


def schema_errors(name: str, data: Any) -> list[str]:
    """Every violation of schemas/<name>.schema.json as 'path: message' lines (empty if valid)."""
    found = []
    for error in sorted(_validator(name).iter_errors(data), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        found.append(f"{where}: {error.message}")
    return found
