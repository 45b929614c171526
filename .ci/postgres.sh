# Installs PostgreSQL from Debian's packages when missing and starts a private,
# throwaway server on loopback. Exports APPKIT_TEST_POSTGRES, the DSN that the
# store tests use. Source this file, then call start_postgres / stop_postgres.

pg_bindir() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  done
  return 1
}

start_postgres() {
  local bindir
  if ! bindir=$(pg_bindir); then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq postgresql >/dev/null
    bindir=$(pg_bindir)
  fi
  PG_DIR=$(mktemp -d /tmp/appkit-pg.XXXXXX)
  chown postgres "$PG_DIR" 2>/dev/null || true
  local as=()
  if [ "$(id -u)" = 0 ]; then as=(runuser -u postgres --); fi
  PG_PORT=${APPKIT_PG_PORT:-}
  if [ -z "$PG_PORT" ]; then
    # The first free port from 55432: a server left running on this machine
    # (by a developer's session) must not stop CI's own.
    PG_PORT=55432
    while (exec 3<>"/dev/tcp/127.0.0.1/$PG_PORT") 2>/dev/null; do
      PG_PORT=$((PG_PORT + 1))
    done
  fi
  "${as[@]}" "$bindir/initdb" -D "$PG_DIR/data" -U appkit --auth=trust -E UTF8 >/dev/null
  "${as[@]}" "$bindir/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >/dev/null
  "${as[@]}" "$bindir/createdb" -h 127.0.0.1 -p "$PG_PORT" -U appkit appkit
  export APPKIT_TEST_POSTGRES="postgres://appkit@127.0.0.1:$PG_PORT/appkit?sslmode=disable"
  PG_AS=("${as[@]}"); PG_BINDIR=$bindir
  echo "PostgreSQL running: $APPKIT_TEST_POSTGRES"
}

stop_postgres() {
  [ -n "${PG_DIR:-}" ] || return 0
  "${PG_AS[@]}" "$PG_BINDIR/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
}
