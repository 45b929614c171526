#!/usr/bin/env bash
# Proves every example's container image without a container daemon or a
# registry: builds it with `appkit image` (an OCI layout, and the tarball for
# docker load / podman load, read back by skopeo), checks its config
# with skopeo, unpacks it with umoci (both from Debian, independent of the
# code that wrote the image), starts its entrypoint in the unpacked root
# filesystem with chroot as the image's user on a free loopback port, runs
# the image's own health check, and runs `appkit conform` against it with the
# example's demo account; then stops it.
#
# Usage: bash .ci/images.sh [NAME ...]   (default: every examples/*/ with a main.go)
# Needs root (chroot); installs umoci, skopeo and jq with apt-get when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
  echo "images.sh: chroot needs root; run it as root (CI does)" >&2
  exit 1
fi
missing=()
for tool in umoci skopeo jq; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/appkit-images.XXXXXX)
pid="" stub_pid="" desk_pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [ -n "$stub_pid" ]; then kill "$stub_pid" 2>/dev/null || true; wait "$stub_pid" 2>/dev/null || true; fi
  if [ -n "$desk_pid" ]; then kill "$desk_pid" 2>/dev/null || true; wait "$desk_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/appkit" ./cmd/appkit
go build -o "$work/providerstub" ./.ci/providerstub
go build -o "$work/fakedesk" ./examples/supportdesk/cmd/fakedesk
chroot_bin=$(command -v chroot)

# The run settings of each example: the container's extra environment and
# the flags of `appkit conform` (its demo account). An example not listed
# runs with neither: its descriptor and the checks without an account.
sqlsync_query='SELECT id, name, email, vip, since, balance, updated_at FROM customers ORDER BY id'
settings() {
  env_extra=() conform_flags=()
  case "$1" in
    tracker) conform_flags=(--account token=demo) ;;
    # The support desk reads the stand-in help-desk API, served beside it.
    supportdesk) env_extra=("DESK_URL=$desk/api") conform_flags=(--account token=desk-demo) ;;
    actions) conform_flags=(--account token=demo) ;;
    sqlsync) conform_flags=(--account connection=sqlite:demo.db --filter "query=$sqlsync_query") ;;
    webhooks) env_extra=(WEBHOOKS_KEY=images-check-key-0123456789) conform_flags=(--account token=shop-demo) ;;
    # No provider is reachable: .ci/providerstub answers 401 to everything,
    # as a provider does for an unknown token, and no account is given.
    oauth2app) env_extra=(OAUTH2_CLIENT_ID=ci "OAUTH2_AUTH_URL=$provider/auth"
                          "OAUTH2_TOKEN_URL=$provider/token" "OAUTH2_API_URL=$provider/api") ;;
    # GitHub is not reachable either: the same stub answers 401 as GitHub
    # does for an unknown token; examples/github's tests run the suite with
    # an account against a stand-in of the GitHub API.
    github) env_extra=("GITHUB_API_URL=$provider") ;;
  esac
}

# free_port picks a port no one listens on, below the kernel's ephemeral
# range: a port in that range can be taken by an outgoing connection (the
# tests', PostgreSQL's) between the check and the listen, which no check
# sees (a CI run failed so: bind: address already in use).
free_port() {
  local low
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  [ "$low" -gt 12000 ] 2>/dev/null || low=32768
  local p=$((10000 + RANDOM % (low - 11000)))
  while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
  echo "$p"
}

stub_port=$(free_port)
"$work/providerstub" "127.0.0.1:$stub_port" &
stub_pid=$!
provider="http://127.0.0.1:$stub_port"
desk_port=$(free_port)
if [ "$desk_port" = "$stub_port" ]; then desk_port=$((stub_port + 1)); fi
DESK_ADDR="127.0.0.1:$desk_port" "$work/fakedesk" 2>/dev/null &
desk_pid=$!
desk="http://127.0.0.1:$desk_port"

fail() { echo "images.sh: $name: $*" >&2; exit 1; }

check_image() {
  name=$1
  local oci="$work/$name.oci" bundle="$work/$name.bundle"
  echo "--- $name: build"
  "$work/appkit" image "./examples/$name" --out "$oci" --tag ci --tar "$work/$name.tar"
  # The tarball is what docker load and podman load read: skopeo reads it
  # the same way (docker-archive) and must find the same config.
  [ "$(skopeo inspect --config --raw "docker-archive:$work/$name.tar" | sha256sum)" = "$(skopeo inspect --config --raw "oci:$oci:ci" | sha256sum)" ] \
    || fail "the docker-archive tarball's config differs from the OCI layout's"
  rm -f "$work/$name.tar"

  echo "--- $name: config (skopeo inspect --config --raw)"
  local cfg
  cfg=$(skopeo inspect --config --raw "oci:$oci:ci")
  [ "$(jq -c .config.Entrypoint <<<"$cfg")" = "[\"/$name\"]" ] || fail "entrypoint $(jq -c .config.Entrypoint <<<"$cfg")"
  local user
  user=$(jq -r .config.User <<<"$cfg")
  [ "$user" = "65532:65532" ] || fail "user $user, want 65532:65532"
  [ "$(jq -r '.config.ExposedPorts | keys | join(",")' <<<"$cfg")" = "8080/tcp" ] || fail "exposed ports $(jq -c .config.ExposedPorts <<<"$cfg")"
  [ "$(jq -c .config.Healthcheck.Test <<<"$cfg")" = '["CMD","/healthcheck"]' ] || fail "health check $(jq -c .config.Healthcheck <<<"$cfg")"
  jq -e '.config.Env | index("PORT=8080")' <<<"$cfg" >/dev/null || fail "no PORT=8080 in $(jq -c .config.Env <<<"$cfg")"
  [ "$(jq -r .os <<<"$cfg")" = linux ] || fail "os $(jq -r .os <<<"$cfg")"

  echo "--- $name: unpack (umoci unpack --rootless)"
  umoci unpack --rootless --image "$oci:ci" "$bundle" >/dev/null
  [ -x "$bundle/rootfs/$name" ] && [ -s "$bundle/rootfs/etc/ssl/certs/ca-certificates.crt" ] || fail "the root filesystem lacks /$name or the CA certificates"
  grep -q '^nonroot:x:65532:65532:' "$bundle/rootfs/etc/passwd" || fail "/etc/passwd has no nonroot user"

  echo "--- $name: run /$name in the root filesystem as $user"
  local port env_run=()
  port=$(free_port)
  settings "$name"
  mapfile -t env_run < <(jq -r '.config.Env[]' <<<"$cfg" | grep -v '^PORT=')
  env -i "${env_run[@]}" "PORT=$port" "${env_extra[@]}" \
    "$chroot_bin" --userspec="$user" "$bundle/rootfs" "/$name" >"$work/$name.log" 2>&1 &
  pid=$!
  local healthy=""
  for _ in $(seq 1 100); do
    if env -i "PORT=$port" "$chroot_bin" --userspec="$user" "$bundle/rootfs" /healthcheck 2>/dev/null; then healthy=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$healthy" ] || { cat "$work/$name.log" >&2; fail "GET / did not answer 200 (the image's /healthcheck) within 10 s"; }
  echo "GET / answers 200 (the image's /healthcheck)"

  echo "--- $name: appkit conform"
  if ! "$work/appkit" conform "http://127.0.0.1:$port" "${conform_flags[@]}"; then
    tail -n 50 "$work/$name.log" >&2
    fail "appkit conform failed"
  fi
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
  rm -rf "$bundle"
}

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for d in examples/*/; do
    [ -f "$d/main.go" ] && names+=("$(basename "$d")")
  done
fi
for n in "${names[@]}"; do
  check_image "$n"
done
echo "images.sh: ${#names[@]} images built, checked, run and conformant: ${names[*]}"
