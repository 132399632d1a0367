# lib.sh: what the quorum measurements of bench/quorum/ share, sourced
# after B (the build directory) and BE (the backend) are set: a temporary
# directory D removed at exit with the monitors started (PIDS), free
# loopback ports whose next one (the raft port) is free too, each
# monitor's config, and the four pools of 221,568 PGs (left creating: no
# OSD).  BENCHMARKS.md, "A quorum of monitors".
D=$(mktemp -d /tmp/quorum-bench.XXXXXX) || exit 1
PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; sleep 1; rm -rf "$D"' EXIT

# free_ports N: N such ports, on one line.
free_ports() {
	python3 -c '
import random, socket, sys
lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
out = []
while len(out) < int(sys.argv[1]):
    p = random.randrange(10000, lo - 1)
    ok = True
    for q in (p, p + 1):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", q))
        except OSError:
            ok = False
        s.close()
    if ok and all(abs(p - q) > 1 for q in out):
        out.append(p)
print(*out)' "$1"
}

# write_conf NAME ADDR MON_HOST: $D/NAME.conf, its store in $D/NAME.
write_conf() {
	cat >"$D/$1.conf" <<CONF
[mon]
name = $1
data = $D/$1
bind = $2
mon_host = $3
max_pg_per_osd = 1000000
max_pgs = 300000
[store]
backend = $BE
[auth]
keyring = $D/keyring
[log]
file = $D/$1.log
CONF
}

# mkfs_quorum FIRST OTHER...: the first made afresh, the others from its
# monmap and keyring.
mkfs_quorum() {
	local first=$1 n
	shift
	"$B/daemon/mapmond" -c "$D/$first.conf" --mkfs >/dev/null || exit 1
	for n in "$@"; do
		"$B/daemon/mapmond" -c "$D/$n.conf" --mkfs \
		    --monmap "$D/$first/monmap" --keyring "$D/keyring" \
		    >/dev/null || exit 1
	done
}

# start_mon NAME: in the foreground mode, its pid in PIDS and in $D/NAME.pid.
start_mon() {
	"$B/daemon/mapmond" -c "$D/$1.conf" -f 2>"$D/$1.err" &
	echo $! >"$D/$1.pid"
	PIDS="$PIDS $!"
}

# make_pools MAPMON...: the four pools of 221,568 PGs through that client.
make_pools() {
	local p
	for p in 1 2 3; do "$@" osd pool create "big$p" 65536 || exit 1; done
	"$@" osd pool create big4 24960 || exit 1
}

# serving ADDR: a `pg stat` of every PG from the monitor at ADDR.
serving() {
	"$B/tools/mapmon" -m "$1" -k "$D/keyring" --connect-timeout 2 \
	    pg stat 2>/dev/null | grep -q '^221568 pgs'
}
