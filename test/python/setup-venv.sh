#!/usr/bin/env bash
# Creates (once) a Python venv with the pinned OpenTelemetry SDK and OTLP/HTTP exporter, outside the repo:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/tracehop/py-venv/
# and prints the path of its python. The venv is rebuilt when requirements.txt changes (a copy of the
# installed requirements is kept inside the venv), and a flock serialises concurrent callers.
# `setup-venv.sh requirements-NAME.txt` makes another venv, py-venv-NAME/, from that file (the metrics
# tests' Prometheus parser): each file has its own venv, so one never rebuilds another in use.
# A file requirements-NAME.no-deps.txt beside it is installed after it with --no-deps (packages whose
# declared dependencies pip cannot resolve in reasonable time); the venv is rebuilt when either changes.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
requirements="$here/${1:-requirements.txt}"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/tracehop"
name="$(basename "$requirements" .txt)"
venv="$cache_root/py-venv${name#requirements}"
no_deps="$here/$name.no-deps.txt"
stamp="$venv/tracehop-requirements.txt"
python="${PYTHON:-python3}"

# What the venv is made from: the requirements file, then the --no-deps file when there is one.
wanted() { cat "$requirements"; if [[ -f "$no_deps" ]]; then cat "$no_deps"; fi; }
ready() { [[ -x "$venv/bin/python" ]] && cmp -s <(wanted) "$stamp"; }

if ready; then
  echo "$venv/bin/python"
  exit 0
fi

if ! command -v "$python" >/dev/null 2>&1; then
  echo "setup-venv.sh: '$python' not found; install Python 3.9+ with venv and pip (Debian: apt-get install python3 python3-venv python3-pip)" >&2
  exit 3
fi
if ! "$python" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  echo "setup-venv.sh: '$python' lacks the venv/ensurepip modules; install them (Debian: apt-get install python3-venv)" >&2
  exit 3
fi

mkdir -p "$cache_root"
exec 9>"$venv.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi
if ready; then
  echo "$venv/bin/python"
  exit 0
fi

echo "setup-venv.sh: creating $venv" >&2
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2
if [[ -f "$no_deps" ]]; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$no_deps" >&2
fi
wanted >"$stamp"
echo "$venv/bin/python"
