#!/usr/bin/env python3
"""linclients.py: concurrent clients that record a history for lincheck.py.

Usage: linclients.py MAPMON MONS KEYRING SECONDS OUT KEY...

Runs one thread per two keys (at least three) for SECONDS, each doing,
at random, on a key of its own choice: a write of a random value, or a
linearizable read (mapmon --linearizable), through `mapmon -m MONS`.  A
KEY is osd.ID (its reweight: `osd reweight ID W`, read from `osd dump`)
or pool.NAME (its size: `osd pool set NAME size N`, read with `osd pool
get NAME size`).  Every operation goes to OUT as a line of lincheck.py's
history, its invocation and completion stamped with one monotonic clock.

A write answered 0 is "ok".  Any other answer leaves its outcome
"unknown": the CLI moves to the next monitor when one fails, so a
refusal it ends with may come after an attempt that was delivered (a
write Ceph makes idempotent, and lincheck.py lets it take effect late or
never).  A read not answered 0 is left out.  The initial value of each
key is read first, alone.
"""

import json
import random
import subprocess
import sys
import threading
import time

WEIGHTS = ["0.25", "0.5", "0.75", "1"]
SIZES = [2, 3, 4]


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30)
    return p.returncode, p.stdout.decode(errors="replace")


class Clients:
    def __init__(self, mapmon, mons, keyring, out):
        self.base = [mapmon, "-m", mons, "-k", keyring,
                     "--connect-timeout", "3"]
        self.out = out
        self.lock = threading.Lock()
        self.t0 = time.monotonic()
        self.nops = 0

    def now(self):
        return time.monotonic() - self.t0

    def record(self, client, key, op, value, start, end, outcome):
        with self.lock:
            self.out.write(json.dumps({
                "client": client, "key": key, "op": op, "value": value,
                "start": round(start, 6), "end": round(end, 6),
                "outcome": outcome}) + "\n")
            self.out.flush()
            self.nops += 1

    def write(self, client, key, rng):
        kind, name = key.split(".", 1)
        if kind == "osd":
            value = rng.choice(WEIGHTS)
            argv = ["osd", "reweight", name, value]
            value = float(value)
        else:
            value = rng.choice(SIZES)
            argv = ["osd", "pool", "set", name, "size", str(value),
                    "--yes-i-really-mean-it"]
        start = self.now()
        rc, _ = run(self.base + argv)
        end = self.now()
        self.record(client, key, "write", value, start, end,
                    "ok" if rc == 0 else "unknown")

    def read(self, client, key):
        """A linearizable read; True when it was answered."""
        kind, name = key.split(".", 1)
        if kind == "osd":
            argv = ["--linearizable", "-f", "json", "osd", "dump"]
        else:
            argv = ["--linearizable", "-f", "json", "osd", "pool", "get",
                    name, "size"]
        start = self.now()
        rc, out = run(self.base + argv)
        end = self.now()
        if rc != 0:
            return False
        d = json.loads(out)
        if kind == "osd":
            value = None
            for o in d.get("osds", []):
                if str(o.get("osd")) == name:
                    value = float(o.get("reweight"))
        else:
            value = d.get("size")
        self.record(client, key, "read", value, start, end, "ok")
        return True

    def loop(self, client, keys, until, seed):
        rng = random.Random(seed)
        while self.now() < until:
            key = rng.choice(keys)
            if rng.random() < 0.5:
                self.write(client, key, rng)
            else:
                self.read(client, key)


def main(argv):
    if len(argv) < 7:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    mapmon, mons, keyring, seconds, outpath = argv[1:6]
    keys = argv[6:]
    for k in keys:
        if not (k.startswith("osd.") or k.startswith("pool.")):
            print("linclients: key %r is neither osd.ID nor pool.NAME" % k,
                  file=sys.stderr)
            return 2
    with open(outpath, "w") as out:
        c = Clients(mapmon, mons, keyring, out)
        for k in keys:
            for _ in range(100):
                if c.read("init", k):
                    break
                time.sleep(0.1)
            else:
                print("linclients: cannot read %s" % k, file=sys.stderr)
                return 1
        until = c.now() + float(seconds)
        n = max(3, (len(keys) + 1) // 2)
        threads = [threading.Thread(target=c.loop,
                                    args=(i, keys, until, 1000 + i))
                   for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    print("linclients: %d operations by %d clients" % (c.nops, n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
