"""The code run.py writes into a snippet's folder and runs there, under the snippet's own
interpreter (any Python: standard library only): RUNNER, which stays behind as the PID
namespace's init when it is PID 1, reports the environment and runs the snippet, and
NETWORK_GUARD, the fallback's best-effort network guard."""

from __future__ import annotations

GUARD_FOLDER = "guard"  # in the workdir; holds the sitecustomize.py below, on PYTHONPATH
# the snippet's wait status, written by whoever stays behind to end its processes: the runner as
# PID 1 of a PID namespace, else launcher.py's reaper
WAIT_STATUS_FILE = "wait-status"

# The fallback network guard, a sitecustomize module: Python imports it at startup from
# PYTHONPATH, so it reaches the interpreters the snippet starts as well as the snippet's own.
# An audit hook sees the C socket layer (`_socket` too) and cannot be removed once added.
NETWORK_GUARD = """\
import sys


def _refuse_network(event, args):
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        if getattr(args[0], "family", None) == 1:  # AF_UNIX: a local pipe, not the network
            return
    elif not event.startswith(("socket.getaddrinfo", "socket.gethostby", "socket.getnameinfo")):
        return
    raise PermissionError("network access is disabled in the math computation sandbox")


sys.addaudithook(_refuse_network)
"""

# Runs inside the child: stays behind as the namespace's init when it is PID 1, reports the
# environment, installs the network guard if asked, then runs the snippet as __main__ so that an
# exception prints its usual traceback and exits 1.
RUNNER = """\
import json, os, platform, re, runpy, sys

if os.getpid() == 1:
    # PID 1 of the snippet's own PID namespace. The snippet must not be PID 1 (the kernel drops
    # signals PID 1 has no handler for, SIGXCPU included), so this process forks it, reaps
    # orphans, and exits when it ends, which ends every process left in the namespace.
    snippet = os.fork()
    if snippet:
        while True:
            pid, status = os.wait()
            if pid == snippet:
                break
        # a new file: whatever the snippet left under its name (a FIFO) is not waited on
        try:
            os.unlink("__WAIT_STATUS_FILE__")
        except OSError:
            pass
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
            os.write(os.open("__WAIT_STATUS_FILE__", flags, 0o600), str(status).encode())
        except OSError:
            pass
        os._exit(0)

# Installed versions from the dist-info folder names (importlib.metadata would cost ~0.1 s).
wanted, packages = sys.argv[3].split(","), {}
for folder in sys.path:
    try:
        names = os.listdir(folder or ".")
    except OSError:
        continue
    for name in names:
        found = re.match(r"([A-Za-z0-9_.]+)-([^-]+)\\.(?:dist|egg)-info$", name)
        if found and found.group(1).lower().replace("_", "-") in wanted:
            packages.setdefault(found.group(1).lower().replace("_", "-"), found.group(2))
with open("environment.json", "w") as handle:
    json.dump({"python": platform.python_version(),
               "implementation": platform.python_implementation(),
               "platform": platform.platform(), "executable": sys.executable,
               "packages": packages}, handle)
if sys.argv[2] == "guard":
    runpy.run_path(os.path.join("__GUARD_FOLDER__", "sitecustomize.py"))
del wanted, packages, handle
sys.argv = [sys.argv[1]]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except Exception:
    import traceback

    # The traceback from the snippet's first frame on: the runner's frames say nothing.
    kind, error, frames = sys.exc_info()
    while frames is not None and frames.tb_frame.f_code.co_filename != sys.argv[0]:
        frames = frames.tb_next
    traceback.print_exception(kind, error, frames)
    sys.exit(1)
""".replace("__WAIT_STATUS_FILE__", WAIT_STATUS_FILE).replace("__GUARD_FOLDER__", GUARD_FOLDER)
