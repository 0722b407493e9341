"""The plugin's artifact templates (templates/*.md) filled in for one problem, and the time their
frontmatter's `created` and `updated` fields carry."""

from __future__ import annotations

from collections.abc import Mapping

from . import frontmatter
from .bootstrap import PLUGIN_ROOT

TEMPLATES = PLUGIN_ROOT / "templates"


def instantiate(
    name: str,
    values: Mapping[str, object],
    fields: Mapping[str, object],
    fill: Mapping[str, object] | None = None,
) -> str:
    """templates/`name` with `{{key}}` placeholders in the body replaced from `values`, the
    frontmatter keys in `fields` set, and those in `fill` set where the template has them."""
    data, body = frontmatter.split_frontmatter((TEMPLATES / name).read_text(encoding="utf-8"), name)
    data.update({key: value for key, value in (fill or {}).items() if key in data})
    data.update(fields)
    for key, value in values.items():
        body = body.replace("{{" + key + "}}", str(value))
    return frontmatter.with_frontmatter(data, body) if data else body
