#!/usr/bin/env bash
# Runs every fuzz target of the module, one after another, for FUZZTIME each.
#
# Usage: FUZZTIME=60s .ci/fuzz.sh [dir ...]
#
#   FUZZTIME  how long to fuzz each target (default 60s; any -fuzztime value,
#             such as 10s or 5000x). CI runs it with 10s per target.
#   dir ...   only the fuzz targets of these package directories
#             (./daterange ./oauth); default: every package of the module.
#
# Targets are found by looking for `func FuzzXxx(` in the module's _test.go
# files (testdata, vendor and hidden directories are skipped, as the go tool
# skips them), and each is run as
#
#   go test -run='^$' -fuzz='^FuzzXxx$' -fuzztime=$FUZZTIME ./pkg
#
# The script stops at the first failing target, names it, and exits 1. The go
# tool has then written the failing input to pkg/testdata/fuzz/FuzzXxx/: fix
# the code and commit that file, so the input stays a seed that every plain
# `go test` runs. Inputs that only widened coverage stay in the go build
# cache (go env GOCACHE), not in the tree.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-60s}
if [ "$#" -eq 0 ]; then
  set -- .
fi

# targets lists "dir name" for every fuzz target under the given directories.
targets() {
  find "$@" \( -name testdata -o -name vendor -o -name '.?*' -o -name '_*' \) -prune -o \
    -type f -name '*_test.go' -print |
    sort |
    while IFS= read -r file; do
      dir=$(dirname "$file")
      sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*\*testing\.F).*/\1/p' "$file" |
        while IFS= read -r name; do
          printf '%s %s\n' "$dir" "$name"
        done
    done
}

list=$(targets "$@")
if [ -z "$list" ]; then
  echo "fuzz.sh: no fuzz targets found under: $*" >&2
  exit 1
fi
total=$(printf '%s\n' "$list" | wc -l | tr -d ' ')
echo "fuzz.sh: $total fuzz target(s), $fuzztime each"

i=0
start=$SECONDS
while IFS=' ' read -r dir name; do
  i=$((i + 1))
  pkg="./${dir#./}"
  [ "$dir" = . ] && pkg=.
  printf '\nfuzz.sh: [%d/%d] %s in %s\n' "$i" "$total" "$name" "$pkg"
  if ! go test -run='^$' -fuzz="^${name}\$" -fuzztime="$fuzztime" "$pkg"; then
    printf '\nfuzz.sh: FAILED: %s in %s (target %d of %d).\n' "$name" "$pkg" "$i" "$total" >&2
    printf 'fuzz.sh: the go tool names the failing input above; a new one is in %s/testdata/fuzz/%s/\n' "$pkg" "$name" >&2
    printf 'fuzz.sh: reproduce with: go test -run='"'"'^%s$'"'"' %s\n' "$name" "$pkg" >&2
    exit 1
  fi
done <<<"$list"
printf '\nfuzz.sh: all %d fuzz target(s) passed (%ds)\n' "$total" "$((SECONDS - start))"
