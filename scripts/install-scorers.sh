#!/usr/bin/env bash
# Installs the reference scorer's Python packages (scorers/requirements.txt, pinned) into a
# virtual environment of their own, .build/scorers, once per change of the list: EchoLab's
# build and runs never need them, only `--scorer aecmos`. A stamp holds the list's SHA-256.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/scorers
stamp="$venv/requirements.sha256"
wanted=$(sha256sum scorers/requirements.txt | cut -d' ' -f1)
if [ -x "$venv/bin/python3" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
    exit 0
fi
python=$(command -v python3 || true)
if [ -z "$python" ]; then
    echo "echolab: make scorers needs python3 (Debian: python3 python3-venv)" >&2
    exit 1
fi
# Debian's python3 keeps venv in a package of its own.
if ! "$python" -m venv --help >/dev/null 2>&1 || ! "$python" -c "import ensurepip" >/dev/null 2>&1; then
    scripts/install-deps.sh python3-venv
fi
echo "echolab: installing the reference scorer's packages into $venv (scorers/requirements.txt)" >&2
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check -r scorers/requirements.txt
echo "$wanted" > "$stamp"
