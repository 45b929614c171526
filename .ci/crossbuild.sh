#!/usr/bin/env bash
# Cross-compiles the CLI for every platform a release ships (build only, no
# tests): linux, darwin and windows on amd64 and arm64, with CGO_ENABLED=0 as
# `go install` users on those platforms without a C toolchain get it. The
# embedded SQLite store is pure Go (modernc.org/sqlite), so this must hold for
# every pair. Binaries go to a temporary directory that is removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
for goos in linux darwin windows; do
  for goarch in amd64 arm64; do
    ext=""; [ "$goos" = windows ] && ext=".exe"
    bin="$out/appkit-$goos-$goarch$ext"
    if CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -o "$bin" ./cmd/appkit; then
      printf 'crossbuild: %s/%s ok (%s bytes)\n' "$goos" "$goarch" "$(wc -c <"$bin" | tr -d ' ')"
    else
      printf 'crossbuild: %s/%s FAILED\n' "$goos" "$goarch"; failed=1
    fi
  done
done
exit "$failed"
