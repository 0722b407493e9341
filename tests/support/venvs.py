"""Python environments for tests of the dependency bootstrap.

`bare_python(folder)` stands in for a mathematician's fresh python3: a venv made --without-pip,
so nothing from requirements.txt is importable. `ready_venv(data_dir, digest)` is the plugin's
venv as the bootstrap leaves it, without installing anything: a bare venv whose site-packages
points (through a .pth file) at this test run's, which has every dependency.
"""

from __future__ import annotations

import site
import subprocess
import sys
from pathlib import Path


def bare_python(folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    probe = "import importlib.util as u; print(u.find_spec('requests') is None)"
    found = subprocess.run([python, "-c", probe], capture_output=True, text=True).stdout.strip()
    assert found == "True", "the bare interpreter can import requests"
    return python


def ready_venv(data_dir: Path, digest: str) -> Path:
    venv = data_dir / "venv"
    python = bare_python(venv)
    find = "import sysconfig; print(sysconfig.get_path('purelib'))"
    own = subprocess.run([python, "-c", find], capture_output=True, text=True, check=True)
    Path(own.stdout.strip(), "test-dependencies.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n"
    )
    (venv / ".requirements.sha256").write_text(digest + "\n")
    return venv
