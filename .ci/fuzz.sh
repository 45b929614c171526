#!/usr/bin/env bash
# Runs every fuzz target of the module, one after another, for FUZZTIME each.
#
# Usage: FUZZTIME=60s .ci/fuzz.sh [dir ...]
#
#   FUZZTIME          how long to fuzz each target (default 60s; any -fuzztime
#                     value, such as 10s or 5000x). CI runs it with 10s.
#   FUZZMINIMIZETIME  how long the fuzzer may shrink one input (default 2s;
#                     go's own default, 60s, lets a slow target such as
#                     conformance's FuzzAnswers spend its whole turn shrinking
#                     the first new input instead of fuzzing).
#   dir ...           only the fuzz targets of these package directories
#                     (./daterange ./oauth); default: every package.
#
# Targets are found by looking for `func FuzzXxx(` in the module's _test.go
# files (testdata, vendor and hidden directories are skipped, as the go tool
# skips them), and each is run as
#
#   go test -run='^$' -fuzz='^FuzzXxx$' -fuzztime=$FUZZTIME \
#     -fuzzminimizetime=$FUZZMINIMIZETIME ./pkg
#
# The script stops at the first failing target, names it, and exits 1. The go
# tool has then written the failing input to pkg/testdata/fuzz/FuzzXxx/: fix
# the code and commit that file, so the input stays a seed that every plain
# `go test` runs. Inputs that only widened coverage stay in the go build
# cache (go env GOCACHE), not in the tree.
#
# Go before 1.27 sometimes ends a duration-bounded run with a bare "context
# deadline exceeded" and no failing input (a race in the fuzzing
# coordinator, https://go.dev/issue/75804). Such a run is not a finding: the
# target is run once more, and if that happens again it is reported as a
# flake and the script goes on. For a FUZZTIME of 10m or more, raise go
# test's own timeout too: GOFLAGS=-timeout=30m.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-60s}
minimizetime=${FUZZMINIMIZETIME:-2s}
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

out=$(mktemp)
trap 'rm -f "$out"' EXIT

# fuzz runs one target, showing its output; it returns 0 if it passed, 1 if
# it failed, 2 if it only hit the coordinator's deadline race (no failing
# input, nothing but "context deadline exceeded" under its FAIL line).
fuzz() {
  local pkg=$1 name=$2
  if go test -run='^$' -fuzz="^${name}\$" -fuzztime="$fuzztime" -fuzzminimizetime="$minimizetime" "$pkg" 2>&1 |
    tee "$out"; then
    return 0
  fi
  if ! grep -q 'Failing input written to' "$out" &&
    grep -A1 -- "^--- FAIL: $name " "$out" | tail -n 1 | grep -Eq '^[[:space:]]+context deadline exceeded$'; then
    return 2
  fi
  return 1
}

i=0
flaked=()
start=$SECONDS
while IFS=' ' read -r dir name; do
  i=$((i + 1))
  pkg="./${dir#./}"
  [ "$dir" = . ] && pkg=.
  printf '\nfuzz.sh: [%d/%d] %s in %s\n' "$i" "$total" "$name" "$pkg"
  for try in 1 2; do
    rc=0
    fuzz "$pkg" "$name" || rc=$?
    [ "$rc" -ne 2 ] && break
    printf 'fuzz.sh: %s ended with the go fuzzing deadline race (go.dev/issue/75804), no failing input (try %d of 2)\n' "$name" "$try" >&2
  done
  if [ "$rc" -eq 2 ]; then
    flaked+=("$name in $pkg")
  elif [ "$rc" -ne 0 ]; then
    printf '\nfuzz.sh: FAILED: %s in %s (target %d of %d).\n' "$name" "$pkg" "$i" "$total" >&2
    printf 'fuzz.sh: the go tool names the failing input above; a new one is in %s/testdata/fuzz/%s/\n' "$pkg" "$name" >&2
    printf 'fuzz.sh: reproduce with: go test -run='"'"'^%s$'"'"' %s\n' "$name" "$pkg" >&2
    exit 1
  fi
done <<<"$list"
if [ "${#flaked[@]}" -gt 0 ]; then
  printf '\nfuzz.sh: ran into the go fuzzing deadline race twice, not counted as failures: %s\n' "${flaked[*]}" >&2
fi
printf '\nfuzz.sh: %d fuzz target(s) found no failing input (%ds)\n' "$total" "$((SECONDS - start))"
