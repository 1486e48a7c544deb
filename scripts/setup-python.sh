#!/usr/bin/env bash
# Makes the Python environment the TRL tests need: .venv-py/ with torch (CPU), transformers, trl,
# accelerate and datasets, installed only from this machine's local wheel indexes and folders, read from
# `pip config` at run time (the default index is unreachable here and would only make pip wait).
#
#   bash scripts/setup-python.sh        prints the venv's python on its last line, or exits 3 when the
#                                       wheels are not there (the tests then say so loudly and skip)
#
# Re-running is cheap: an existing venv that already imports everything is kept (the check itself is
# kept in .venv-py/.imports-checked until site-packages changes).
set -uo pipefail
cd "$(dirname "$0")/.."
venv=".venv-py"
py="$venv/bin/python"
packages=(torch transformers trl peft accelerate datasets safetensors)

# Test files run in parallel and several call this; in a fresh clone one builds the venv while the
# others wait for it, instead of deleting it under each other.
if command -v flock >/dev/null; then
  exec 9>"$venv.lock"
  flock 9
fi

# One interpreter both checks the imports and reports the versions (each start imports torch: 5-20 s, and
# a dozen test files ask). The answer is kept in $stamp until anything is installed into or removed from
# site-packages (which changes that folder's mtime) or the interpreter changes.
stamp="$venv/.imports-checked"
site=$(ls -d "$venv"/lib/python*/site-packages 2>/dev/null | head -1)
if [ -x "$py" ] && [ -n "$site" ] && [ -f "$stamp" ] && [ "$stamp" -nt "$site" ] && [ "$stamp" -nt "$py" ]; then
  echo "python: $venv ready ($(cat "$stamp"); imports checked $(date -r "$stamp" '+%F %T'))" >&2
  echo "$py"
  exit 0
fi
# Imports every package and prints the versions line kept in $stamp.
imports() {
  "$py" -c 'import torch, transformers, trl, peft, accelerate, datasets, safetensors
print(f"trl {trl.__version__}, torch {torch.__version__}, transformers {transformers.__version__}")'
}
if [ -x "$py" ] && versions=$(imports 2>/dev/null); then
  echo "$versions" > "$stamp"
  echo "python: $venv ready ($versions)" >&2
  echo "$py"
  exit 0
fi
rm -f "$stamp"

host_py=$(command -v python3 || true)
if [ -z "$host_py" ]; then
  echo "python: NO python3 on this machine; the TRL tests cannot run" >&2
  exit 3
fi

# The local wheel locations, as pip is configured on this machine (never written into the repo).
extra=$(pip config get global.extra-index-url 2>/dev/null || true)
links=$(pip config get global.find-links 2>/dev/null || true)
if [ -z "$extra$links" ]; then
  echo "python: NO local wheel index or folder in 'pip config list'; the TRL tests cannot run" >&2
  exit 3
fi
args=(--no-input --disable-pip-version-check)
first=1
for url in $extra; do
  if [ $first = 1 ]; then args+=(--index-url "$url"); first=0; else args+=(--extra-index-url "$url"); fi
done
for dir in $links; do args+=(--find-links "$dir"); done

echo "python: creating $venv from the local wheels (about 100 s)..." >&2
rm -rf "$venv"
"$host_py" -m venv "$venv" || { echo "python: NO venv module; the TRL tests cannot run" >&2; exit 3; }
if ! "$py" -m pip install -q "${args[@]}" "${packages[@]}" >&2; then
  echo "python: the local wheels for ${packages[*]} are MISSING or broken; the TRL tests cannot run" >&2
  exit 3
fi
if ! versions=$(imports); then
  echo "python: $venv was installed but does not import ${packages[*]}; the TRL tests cannot run" >&2
  exit 3
fi
echo "$versions" > "$stamp"
echo "python: $versions" >&2
echo "$py"
