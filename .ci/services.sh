#!/usr/bin/env bash
# Redis and PostgreSQL for the distributed-run tests (see README "Distributed runs").
# SOURCE this file (`. .ci/services.sh`): it installs redis-server and postgresql from Debian's
# packages when missing, starts Redis without persistence and a throwaway PostgreSQL cluster
# (trust auth, private socket dir) on free 127.0.0.1 ports, exports RETRACE_TEST_REDIS_URL and
# RETRACE_TEST_POSTGRES_URL, and stops both on exit. It chains onto an EXIT trap that is already
# installed (e.g. the podman one of .ci/podman-setup.sh) instead of replacing it.

retrace_services_install() {
  local missing=()
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
  if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

retrace_free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# Run a PostgreSQL tool as the cluster's owner (postgres when we are root, else ourselves).
retrace_pg_as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

retrace_services_start() {
  local dir=${RETRACE_SERVICES_DIR:-/tmp/retrace-services}
  local pgbin redis_port pg_port
  rm -rf "$dir" && mkdir -p "$dir/redis" "$dir/pg"
  redis_port=$(retrace_free_port)
  redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --pidfile "$dir/redis/redis.pid" --dir "$dir/redis" --logfile "$dir/redis/redis.log" || return 1
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  pg_port=$(retrace_free_port)
  # PostgreSQL refuses to run as root: the throwaway cluster belongs to the postgres user then.
  if [ "$(id -u)" = 0 ]; then id postgres >/dev/null 2>&1 || useradd -r postgres; chown -R postgres "$dir/pg"; fi
  retrace_pg_as_owner "$pgbin/initdb" -D "$dir/pg/data" -A trust -U postgres >"$dir/pg/initdb.log" 2>&1 || { echo "initdb failed; see $dir/pg/initdb.log" >&2; return 1; }
  retrace_pg_as_owner "$pgbin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w \
    -o "-p $pg_port -k $dir/pg -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=200" start >/dev/null || { echo "postgres did not start; see $dir/pg/server.log" >&2; return 1; }
  retrace_pg_as_owner "$pgbin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres retrace_test
  export RETRACE_TEST_REDIS_URL="redis://127.0.0.1:$redis_port"
  export RETRACE_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$pg_port/retrace_test"
  RETRACE_TEST_PG_CTL="$pgbin/pg_ctl"
  RETRACE_SERVICES_DIR_USED=$dir
  echo "::ci redis at $RETRACE_TEST_REDIS_URL, postgres at $RETRACE_TEST_POSTGRES_URL"
}

retrace_services_stop() {
  local dir=${RETRACE_SERVICES_DIR_USED:-}
  [ -n "$dir" ] || return 0
  if [ -f "$dir/redis/redis.pid" ]; then kill "$(cat "$dir/redis/redis.pid")" 2>/dev/null || true; fi
  if [ -d "$dir/pg/data" ]; then retrace_pg_as_owner "${RETRACE_TEST_PG_CTL}" -D "$dir/pg/data" -m fast stop >/dev/null 2>&1 || true; fi
  RETRACE_SERVICES_DIR_USED=
  echo "::ci redis and postgres stopped"
}

retrace_services_install
retrace_services_start
# Compose with an existing EXIT trap (podman-setup.sh installs one) rather than clobbering it.
retrace_services_prev_trap=$(trap -p EXIT | sed -E "s/^trap -- '(.*)' EXIT$/\1/")
if [ -n "$retrace_services_prev_trap" ]; then
  trap "retrace_services_stop; $retrace_services_prev_trap" EXIT
else
  trap retrace_services_stop EXIT
fi
