"""The one environment contract every script follows, validated in one place, and where the
workspace lives.

MATH_<SOURCE>_API_URL                    each source's base URL, http(s) (a local server can
                                         stand in; sources.REGISTRY names them and the defaults)
MATH_ARXIV_SRC_URL                       arXiv's LaTeX source endpoint (https://export.arxiv.org/src)
SEMANTIC_SCHOLAR_API_KEY                 S2 key, else .math/config.json semantic_scholar_api_key
MATH_CACHE_DIR, MATH_CACHE_TTL           HTTP cache; cache lifetime (s, 86400)
XDG_RUNTIME_DIR                          the rate limits' state, one per user and host, lives in
                                         its math/ folder (else /tmp/math-<uid>: runtime_dir())
MATH_<SOURCE>_MIN_INTERVAL               seconds between a source's requests across processes
                                         (its row's default; Crossref's by default what its pool
                                         allows: see crossref_intervals())
MATH_HTTP_RETRIES, MATH_HTTP_BACKOFF     retries after the first try (4); first backoff (s, 2)
MATH_HTTP_TIMEOUT                        the most one request may take, first to last byte (s, 60)
MATH_LOCK_TIMEOUT                        how long a writer waits for another's file lock (s, 60)
MATH_LITERATURE_DB                       the SQLite run store (<workspace>/.math/literature.db)
MATH_WORKSPACE                           the folder holding .math/ (else nearest such ancestor)
MATH_CONTACT_EMAIL                       your address for the services' User-Agent (Crossref's
                                         mailto), else .math/config.json contact_email; optional

`environment()` reads and checks every variable above at once (cli.run calls it before a script
does anything): a value out of its range, `nan`, `inf`, a control character in a key or a path,
or a URL that is not http(s) is an EnvironmentProblem (exit 4) naming the variable, in one line,
and never quoting a key. The accessors below read that checked object.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from .bootstrap import data_dir
from .errors import BadInput, EnvironmentProblem, keep_secret, shown
from .files import read_json
from .sources import BY_CODE, REGISTRY
from .version import VERSION

ARXIV_SRC_URL = "https://export.arxiv.org/src"  # /src/<id>[vN]: the paper's LaTeX source files
# The product token; user_agent() adds the user's contact address when one is configured.
USER_AGENT = f"math-claude-plugin/{VERSION}"
_EMAIL = re.compile(r"[^@\s<>()\[\],;:\"]+@[^@\s<>()\[\],;:\"]+\.[^@\s<>()\[\],;:\"]+")
# What an API key may hold: visible ASCII (an HTTP header value; S2 keys are letters and digits).
API_KEY = re.compile(r"[\x21-\x7e]{1,256}")
MAX_PATH_CHARS = 4096  # PATH_MAX on Linux
# The .math/config.json key that lets compute.py run snippets whose writes nothing confines.
ALLOW_UNSANDBOXED_COMPUTE = "allow_unsandboxed_compute"
# The .math/config.json key that lets a run finish DONE with OUTPUT.tex alone where no TeX is
# installed (research/texbuild.py).
TEX_ONLY = "tex_only"


@dataclass(frozen=True)
class Environment:
    """Every variable of the contract, checked; None where a path is not set."""

    api_urls: dict[str, str]  # by source code (sources.REGISTRY)
    min_intervals: dict[str, float | None]  # by source code; None where the variable is not set
    s2_api_key: str | None  # from the environment only (see s2_api_key())
    cache_dir: Path | None
    cache_ttl: float
    http_retries: int
    http_backoff: float
    http_timeout: float
    lock_timeout: float
    literature_db: Path | None
    workspace: Path | None
    contact_email: str | None  # from the environment only (see contact_email())
    arxiv_src_url: str


_checked: tuple[tuple[str | None, ...], Environment] | None = None
NAMES = (
    *(name for s in REGISTRY for name in (s.url_variable, s.interval_variable)),
    "SEMANTIC_SCHOLAR_API_KEY",
    "MATH_CACHE_DIR",
    "MATH_CACHE_TTL",
    "MATH_HTTP_RETRIES",
    "MATH_HTTP_BACKOFF",
    "MATH_HTTP_TIMEOUT",
    "MATH_LOCK_TIMEOUT",
    "MATH_LITERATURE_DB",
    "MATH_WORKSPACE",
    "MATH_CONTACT_EMAIL",
    "MATH_ARXIV_SRC_URL",
)


def environment() -> Environment:
    """The checked environment; checked again only when one of its variables changed."""
    global _checked
    raw = tuple(os.environ.get(name) for name in NAMES)
    if _checked is None or _checked[0] != raw:
        _checked = (raw, _read())
    return _checked[1]


def _read() -> Environment:
    return Environment(
        api_urls={s.code: _url(s.url_variable, s.api_url).rstrip("/") for s in REGISTRY},
        min_intervals={
            s.code: (
                _number(s.interval_variable, s.min_interval, 0, 3600)
                if (os.environ.get(s.interval_variable) or "").strip()
                else None
            )
            for s in REGISTRY
        },
        s2_api_key=_key(os.environ.get("SEMANTIC_SCHOLAR_API_KEY"), "SEMANTIC_SCHOLAR_API_KEY"),
        cache_dir=_path("MATH_CACHE_DIR"),
        cache_ttl=_number("MATH_CACHE_TTL", 86400.0, 0, 10 * 365 * 86400),
        http_retries=int(_number("MATH_HTTP_RETRIES", 4, 0, 20, integer=True)),
        http_backoff=_number("MATH_HTTP_BACKOFF", 2.0, 0, 600),
        http_timeout=_number("MATH_HTTP_TIMEOUT", 60.0, 0, 3600, above_low=True),
        lock_timeout=_number("MATH_LOCK_TIMEOUT", 60.0, 0, 86400, above_low=True),
        literature_db=_path("MATH_LITERATURE_DB"),
        workspace=_path("MATH_WORKSPACE"),
        contact_email=_email(os.environ.get("MATH_CONTACT_EMAIL"), "MATH_CONTACT_EMAIL"),
        arxiv_src_url=_url("MATH_ARXIV_SRC_URL", ARXIV_SRC_URL).rstrip("/"),
    )


def _bad(name: str, raw: str | None, wanted: str) -> EnvironmentProblem:
    value = "" if raw is None else f"={shown(raw, 60)!r}"
    return EnvironmentProblem(f"{name}{value} {wanted}", code="bad_environment")


def _number(
    name: str,
    default: float,
    low: float,
    high: float,
    integer: bool = False,
    above_low: bool = False,
) -> float:
    """A finite number in [low, high] (above `low` when `above_low`); unset or empty: default."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    wanted = (
        f"must be {'a whole number' if integer else 'a number'} "
        f"{'more than' if above_low else 'from'} {low:g} {'and at most' if above_low else 'to'} "
        f"{high:g}"
    )
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:  # also a 5,000-digit integer (int() refuses it)
        raise _bad(name, raw, wanted) from None
    if not math.isfinite(value) or value < low or value > high or (above_low and value == low):
        raise _bad(name, raw, wanted)
    return value


def _url(name: str, default: str) -> str:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:  # urlsplit refuses "http://[::1", .port "http://h:99999": ValueError
        parts = urlsplit(raw) if raw.isprintable() and " " not in raw else None
        usable = parts is not None and parts.scheme in ("http", "https") and bool(parts.hostname)
        usable = usable and (parts is None or parts.port is None or parts.port > 0)
    except ValueError:
        usable = False
    if not usable:
        raise _bad(name, raw, "must be an http:// or https:// URL")
    return raw


def _path(name: str) -> Path | None:
    raw = os.environ.get(name)
    if not raw:
        return None
    if not raw.isprintable() or len(raw) > MAX_PATH_CHARS:
        raise _bad(name, None, f"must be a path of at most {MAX_PATH_CHARS} printable characters")
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        raise _bad(name, None, "must be a path in UTF-8") from None
    return Path(raw)


def _email(raw: object, where: str, problem: type = EnvironmentProblem) -> str | None:
    """One e-mail address, or None when unset; anything else is `problem` naming `where`."""
    if raw in (None, ""):
        return None
    if not isinstance(raw, str) or not _EMAIL.fullmatch(raw.strip()):
        shown_value = shown(raw, 60) if isinstance(raw, str) else raw
        raise problem(f"{where}={shown_value!r} is not an e-mail address", code="bad_environment")
    keep_secret(raw.strip())  # never printed: a service echoing the User-Agent is redacted
    return raw.strip()


def _key(raw: object, where: str) -> str | None:
    """A usable API key or None; a malformed one is refused without ever quoting it."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if not isinstance(raw, str) or not API_KEY.fullmatch(raw.strip()):
        raise EnvironmentProblem(
            f"{where} is not a usable API key (it must be 1 to 256 visible ASCII characters: "
            "no spaces, line breaks or control characters)",
            code="bad_api_key",
        )
    keep_secret(raw.strip())
    return raw.strip()


def api_url(source: str) -> str:
    """A source's base URL: its row's url_variable, else its row's default."""
    return environment().api_urls[source]


def arxiv_src_url() -> str:
    return environment().arxiv_src_url


def min_interval(source: str) -> float:
    """Seconds between a source's requests: its row's interval_variable, else its default."""
    interval = environment().min_intervals[source]
    return BY_CODE[source].min_interval if interval is None else interval


def crossref_intervals(polite: bool) -> tuple[float, float]:
    """Seconds between (single-record, list) Crossref requests. Crossref's published limits
    (crossref.org/documentation/retrieve-metadata/rest-api/access-and-authentication): the public
    pool allows 5 single-record requests a second and 1 list request a second, 1 at a time; the
    polite pool (a mailto) 10, 3 and 3. Both kinds share one limiter, each request holding the
    next start back by its own kind's interval, so list requests stay within their limit whatever
    comes between. MATH_CROSSREF_MIN_INTERVAL, when set, is the interval for both kinds."""
    interval = environment().min_intervals["crossref"]
    if interval is not None:
        return interval, interval
    return (0.1, 1 / 3) if polite else (0.2, 1.0)


def http_retries() -> int:
    return environment().http_retries


def http_backoff() -> float:
    return environment().http_backoff


def http_timeout() -> float:
    return environment().http_timeout


def lock_timeout() -> float:
    return environment().lock_timeout


def cache_dir() -> Path:
    return environment().cache_dir or data_dir() / "cache"


RUNTIME_FALLBACK = Path("/tmp")  # not TMPDIR, which differs between a user's processes


def runtime_dir() -> Path:
    """This user's folder for state every process of the user on this host shares whatever
    MATH_CACHE_DIR says (the services' rate limits): $XDG_RUNTIME_DIR/math, else
    /tmp/math-<uid> (the temporary folder where /tmp is missing). Made private (0700) if need
    be; EnvironmentProblem when it is not a folder of this user's (another user made it first,
    or it is a symbolic link)."""
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    uid = os.getuid() if hasattr(os, "getuid") else 0
    if base and os.path.isabs(base) and os.path.isdir(base):
        folder = Path(base) / "math"
    else:
        fallback = RUNTIME_FALLBACK if RUNTIME_FALLBACK.is_dir() else Path(tempfile.gettempdir())
        folder = fallback / f"math-{uid}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = folder.lstat()
        if not stat.S_ISDIR(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != uid):
            raise OSError(0, "not a folder of this user's")
        if stat.S_IMODE(info.st_mode) & 0o077:
            folder.chmod(0o700)
    except OSError as exc:
        raise EnvironmentProblem(
            f"cannot use {folder} for the rate limits' state ({exc.strerror or exc}); set "
            "XDG_RUNTIME_DIR to a private folder of yours",
            code="runtime_unusable",
        ) from None
    return folder


def cache_ttl() -> float:
    return environment().cache_ttl


def workspace_root(start: Path | None = None) -> Path:
    """The folder holding `.math/`: $MATH_WORKSPACE, else the nearest ancestor of cwd that has one,
    else cwd itself (where `/math:init` would create it)."""
    workspace = environment().workspace
    if workspace is not None:
        return workspace.resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / ".math").is_dir():
            return folder
    return here


def math_dir(start: Path | None = None) -> Path:
    return workspace_root(start) / ".math"


def workspace_config(start: Path | None = None) -> dict[str, object]:
    """`.math/config.json`, or {} when there is none (a broken one is BadInput naming the file)."""
    path = math_dir(start) / "config.json"
    if not path.exists():
        return {}
    data = read_json(str(path), what="workspace config", regular=True)  # a FIFO never hangs
    return data if isinstance(data, dict) else {}


def s2_api_key() -> str | None:
    """The Semantic Scholar key: environment first, then .math/config.json. Never print it."""
    key = environment().s2_api_key
    if key is not None:
        return key
    return _key(
        workspace_config().get("semantic_scholar_api_key"),
        ".math/config.json semantic_scholar_api_key",
    )


def contact_email() -> str | None:
    """The user's contact address for the services (User-Agent, Crossref's mailto):
    MATH_CONTACT_EMAIL, else `contact_email` in .math/config.json; None when neither is set.
    A bad MATH_CONTACT_EMAIL is an EnvironmentProblem, a bad config value BadInput, each naming
    where it came from."""
    email = environment().contact_email
    if email is not None:
        return email
    where = f"contact_email in {math_dir() / 'config.json'}"
    return _email(workspace_config().get("contact_email"), where, BadInput)


def allow_unsandboxed_compute(start: Path | None = None) -> bool:
    """Whether compute.py may run a snippet where the sandbox is incomplete (nothing keeps its
    writes in its own folder, or no user, mount and PID namespaces keep other processes'
    environments and the workspace config from it): `"allow_unsandboxed_compute": true` in
    .math/config.json; false when absent or null. Any other value is BadInput naming the file."""
    return _flag(ALLOW_UNSANDBOXED_COMPUTE, start)


def tex_only_configured(start: Path | None = None) -> bool:
    """Whether the user chose to finish write-ups without a PDF where no TeX is installed:
    `"tex_only": true` in .math/config.json; false when absent or null. Where TeX is installed
    OUTPUT.tex is compiled all the same. Any other value is BadInput naming the file."""
    return _flag(TEX_ONLY, start)


def configured_author(start: Path | None = None) -> str | None:
    """The name a write-up gives as its author: `"author"` in .math/config.json (set by hand);
    None when absent, null or blank. Any other value is BadInput naming the file."""
    value = workspace_config(start).get("author")
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise BadInput(
            f"author in {math_dir(start) / 'config.json'} must be a name (a string)",
            code="bad_config",
        )
    return " ".join(value.split())


def _flag(key: str, start: Path | None) -> bool:
    value = workspace_config(start).get(key)
    if value is None or isinstance(value, bool):
        return bool(value)
    raise BadInput(
        f"{key} in {math_dir(start) / 'config.json'} must be true or false "
        f"(got {shown(json.dumps(value), 60)})",
        code="bad_config",
    )


def user_agent() -> str:
    """What every request says it is: the product, and whom to contact when one is configured."""
    email = contact_email()
    return f"{USER_AGENT} (mailto:{email})" if email else USER_AGENT


def literature_db(override: str | None = None) -> Path:
    if override:
        return Path(override)
    return environment().literature_db or math_dir() / "literature.db"
