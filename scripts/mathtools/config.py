"""The one environment contract every script follows, and where the workspace lives.

MATH_ARXIV_API_URL, MATH_S2_API_URL      service base URLs (a local server can stand in)
SEMANTIC_SCHOLAR_API_KEY                 S2 key, else .math/config.json semantic_scholar_api_key
MATH_CACHE_DIR, MATH_CACHE_TTL           HTTP cache and rate-limit state; cache lifetime (s, 86400)
MATH_ARXIV_MIN_INTERVAL                  seconds between arXiv requests across processes (3)
MATH_S2_MIN_INTERVAL                     seconds between S2 requests across processes (1)
MATH_HTTP_RETRIES, MATH_HTTP_BACKOFF     retries after the first try (4); first backoff (s, 2)
MATH_HTTP_TIMEOUT                        read timeout (s, 60)
MATH_LITERATURE_DB                       the SQLite run store (<workspace>/.math/literature.db)
MATH_WORKSPACE                           the folder holding .math/ (else nearest such ancestor)
MATH_CONTACT_EMAIL                       your address for the services' User-Agent (Crossref's
                                         mailto), else .math/config.json contact_email; optional
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from . import __version__
from .bootstrap import data_dir

ARXIV_API_URL = "https://export.arxiv.org/api/query"
S2_API_URL = "https://api.semanticscholar.org/graph/v1"
# The product token; user_agent() adds the user's contact address when one is configured.
USER_AGENT = f"math-claude-plugin/{__version__}"
_EMAIL = re.compile(r"[^@\s<>()\[\],;:\"]+@[^@\s<>()\[\],;:\"]+\.[^@\s<>()\[\],;:\"]+")


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw in (None, ""):
        return default
    try:
        value = float(raw)
    except ValueError:
        from .cli import BadInput

        raise BadInput(f"{name}={raw!r} is not a number", code="bad_environment") from None
    return max(value, 0.0)


def arxiv_api_url() -> str:
    return os.environ.get("MATH_ARXIV_API_URL") or ARXIV_API_URL


def s2_api_url() -> str:
    return (os.environ.get("MATH_S2_API_URL") or S2_API_URL).rstrip("/")


def arxiv_min_interval() -> float:
    return _float("MATH_ARXIV_MIN_INTERVAL", 3.0)


def s2_min_interval() -> float:
    return _float("MATH_S2_MIN_INTERVAL", 1.0)


def http_retries() -> int:
    return int(_float("MATH_HTTP_RETRIES", 4))


def http_backoff() -> float:
    return _float("MATH_HTTP_BACKOFF", 2.0)


def http_timeout() -> float:
    return _float("MATH_HTTP_TIMEOUT", 60.0)


def cache_dir() -> Path:
    return Path(os.environ.get("MATH_CACHE_DIR") or data_dir() / "cache")


def cache_ttl() -> float:
    return _float("MATH_CACHE_TTL", 86400.0)


def workspace_root(start: Path | None = None) -> Path:
    """The folder holding `.math/`: $MATH_WORKSPACE, else the nearest ancestor of cwd that has one,
    else cwd itself (where `/math:init` would create it)."""
    if os.environ.get("MATH_WORKSPACE"):
        return Path(os.environ["MATH_WORKSPACE"]).resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / ".math").is_dir():
            return folder
    return here


def math_dir(start: Path | None = None) -> Path:
    return workspace_root(start) / ".math"


def workspace_config(start: Path | None = None) -> dict:
    """`.math/config.json`, or {} when there is none (a broken one is BadInput naming the file)."""
    path = math_dir(start) / "config.json"
    if not path.exists():
        return {}
    from .cli import read_json

    data = read_json(str(path), what="workspace config")
    return data if isinstance(data, dict) else {}


def s2_api_key() -> str | None:
    """The Semantic Scholar key: environment first, then .math/config.json. Never print it."""
    key = os.environ.get("SEMANTIC_SCHOLAR_API_KEY") or workspace_config().get(
        "semantic_scholar_api_key"
    )
    return key.strip() if isinstance(key, str) and key.strip() else None


def contact_email() -> str | None:
    """The user's contact address for the services (User-Agent, Crossref's mailto):
    MATH_CONTACT_EMAIL, else `contact_email` in .math/config.json; None when neither is set.
    A value that is not one e-mail address is BadInput naming where it came from."""
    raw = os.environ.get("MATH_CONTACT_EMAIL")
    where = "MATH_CONTACT_EMAIL"
    if raw in (None, ""):
        raw = workspace_config().get("contact_email")
        where = f"contact_email in {math_dir() / 'config.json'}"
    if raw in (None, ""):
        return None
    if not isinstance(raw, str) or not _EMAIL.fullmatch(raw.strip()):
        from .cli import BadInput

        raise BadInput(f"{where}={raw!r} is not an e-mail address", code="bad_environment")
    return raw.strip()


def user_agent() -> str:
    """What every request says it is: the product, and whom to contact when one is configured."""
    email = contact_email()
    return f"{USER_AGENT} (mailto:{email})" if email else USER_AGENT


def literature_db(override: str | None = None) -> Path:
    if override:
        return Path(override)
    if os.environ.get("MATH_LITERATURE_DB"):
        return Path(os.environ["MATH_LITERATURE_DB"])
    return math_dir() / "literature.db"
