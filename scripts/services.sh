# Throwaway PostgreSQL and Redis servers for the tests (sourced by scripts/test.sh; bash).
#
# start_test_services makes a temporary folder, starts PostgreSQL (Debian's packages, run as the
# `postgres` user, initdb into that folder, trust on 127.0.0.1 only, a free port) and Redis
# (no persistence, 127.0.0.1, a free port), and exports
#   MELDCAM_TEST_POSTGRES_URL=postgresql+psycopg://postgres@127.0.0.1:PORT/meldcam
#   MELDCAM_TEST_REDIS_URL=redis://127.0.0.1:PORT/0
# for tests/ (the PostgreSQL and Redis cases skip without them, and fail under CI=true).
# stop_test_services stops both and removes the folder; start_test_services sets a trap for it.
# Needs root (to run PostgreSQL as `postgres`); without it, or without the packages, it says so
# and exports nothing.

PG_BIN=${PG_BIN:-$( (ls -d /usr/lib/postgresql/*/bin 2>/dev/null || true) | sort -V | tail -n 1)}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop_test_services() {
    if [ -n "${MELDCAM_SERVICES_DIR:-}" ] && [ -d "$MELDCAM_SERVICES_DIR" ]; then
        if [ -f "$MELDCAM_SERVICES_DIR/pg/data/postmaster.pid" ]; then
            runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$MELDCAM_SERVICES_DIR/pg/data" -m fast \
                -w stop >/dev/null 2>&1 || true
        fi
        if [ -f "$MELDCAM_SERVICES_DIR/redis.pid" ]; then
            kill "$(cat "$MELDCAM_SERVICES_DIR/redis.pid")" 2>/dev/null || true
        fi
        rm -rf "$MELDCAM_SERVICES_DIR"
    fi
    unset MELDCAM_SERVICES_DIR
}

start_test_services() {
    if [ "$(id -u)" != 0 ] || [ ! -x "$PG_BIN/initdb" ] || ! command -v redis-server >/dev/null; then
        echo "meldcam tests: no PostgreSQL/Redis servers (needs root and the Debian packages" \
            "postgresql redis-server): their tests are skipped" >&2
        return 0
    fi
    MELDCAM_SERVICES_DIR=$(mktemp -d /tmp/meldcam-services.XXXXXX)
    export MELDCAM_SERVICES_DIR
    trap stop_test_services EXIT
    local dir=$MELDCAM_SERVICES_DIR pg_port redis_port
    mkdir "$dir/pg"
    chown postgres: "$dir/pg"
    chmod 755 "$dir"
    pg_port=$(free_port)
    runuser -u postgres -- "$PG_BIN/initdb" -D "$dir/pg/data" -U postgres -A trust \
        --no-sync >/dev/null
    cat >>"$dir/pg/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $pg_port
unix_socket_directories = '$dir/pg'
fsync = off
max_connections = 200
EOF
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/log" -w start >/dev/null
    runuser -u postgres -- "$PG_BIN/createdb" -h 127.0.0.1 -p "$pg_port" meldcam
    export MELDCAM_TEST_POSTGRES_URL="postgresql+psycopg://postgres@127.0.0.1:$pg_port/meldcam"
    redis_port=$(free_port)
    # 256 databases: each pytest-xdist worker takes 4 of its own (tests/webapp/test_nodes.py)
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
        --databases 256 --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
    export MELDCAM_TEST_REDIS_URL="redis://127.0.0.1:$redis_port/0"
    echo "meldcam tests: PostgreSQL on 127.0.0.1:$pg_port, Redis on 127.0.0.1:$redis_port" >&2
}
