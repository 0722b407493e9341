"""Where the user's own approvals live: `/math:research continue|accept-partial`, recorded by the
UserPromptSubmit hook (hooks/user_approval.py) as the user types it, used up by state.py.

The record lives in the plugin's data folder (bootstrap.data_dir(): $CLAUDE_PLUGIN_DATA in Claude
Code), outside the workspace, one file per workspace: a Write or Edit tool call of the model's
inside the project, which acceptEdits lets through unasked, cannot reach it.

Standard library only: the hook imports it without the plugin's environment.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..core.bootstrap import data_dir

CHOICES = ("continue", "accept-partial")


def approval_file(math_dir: Path) -> Path:
    """The approval record of the workspace whose `.math/` folder is `math_dir`."""
    key = hashlib.sha256(str(Path(math_dir).resolve()).encode("utf-8")).hexdigest()[:24]
    return data_dir() / "approvals" / f"{key}.json"
