# Sourced by tools/run-tests and tools/run-demo: makes .venv once (and again whenever a requirements
# file changes), with the pinned development requirements. Needs python3 (>= 3.10) with its
# venv module (Debian/Ubuntu: apt install python3-venv).
venv=.venv
stamp="$venv/.requirements.sha256"
want=$(cat plugin/requirements.txt requirements-dev.txt | sha256sum | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
  echo "$want" > "$stamp"
fi
