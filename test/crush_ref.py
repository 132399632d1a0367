#!/usr/bin/env python3
"""crush_ref.py: the hierarchy's placement function, written from
mapmon-protocol(7), PLACEMENT, alone, as a second implementation to check
the library against (test/unit/crush_ref.sh).

    crush_ref.py MAPFILE
    crush_ref.py CRUSHDUMP OSDDUMP

MAPFILE is JSON: {"crush": the `osd crush dump` of the hierarchy,
"osds": [{"osd", "up", "in", "weight"}...] as `osd dump` has them,
"queries": [{"rule", "pool", "seed", "size"}...]}.  Prints one line per
query, "RULE POOL.SEEDHEX SIZE -> [a,b,c]", the up set the page defines.

The second form reads a monitor's `-f json osd crush dump` and `-f json
osd dump` as they are (test/e2e/crush_props.sh) and queries every PG of
every pool of the osdmap, seeds 0 .. pg_num - 1 at the pool's size and
crush_rule; it prints one line per PG, "POOL.SEEDHEX [a,b,c]", in the
order of the pools and seeds.
Python's integers are unbounded, so every 64-bit step below is masked.
"""

import json
import math
import sys

M64 = (1 << 64) - 1
G = 0x9E3779B97F4A7C15
ONE = 65536  # 16.16: 1.0
TYPES = {"osd": 0, "host": 1, "rack": 3, "room": 7, "datacenter": 8, "root": 11}
ATTEMPTS = 51  # f = 0 .. 50


def mix(z):
    """Stafford's Mix13, splitmix64's output step."""
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def u32(x):
    """An id as an unsigned 32-bit value (bucket -1 is 0xffffffff)."""
    return x & 0xFFFFFFFF


def pg_key(pool, seed):
    return mix(((u32(pool) << 32) | u32(seed)) + G)


def attempt_key(k, r):
    return mix(k + ((1 << 32) + 1 + r) * G)


def item_hash(a, item):
    return mix(a + (u32(item) + 1) * G)


# T[j] = floor(log1p(j / 1024.0) * 4294967296.0 + 0.5), j = 0 .. 1024.
T = [math.floor(math.log1p(j / 1024.0) * 4294967296.0 + 0.5)
     for j in range(1025)]
LN2 = T[1024]


def ln(u):
    """ln(u / 2^32) in 32.32 fixed point, for 1 <= u <= 2^32."""
    m = u.bit_length() - 1
    f = (((u << (63 - m)) & M64) >> 31) & 0xFFFFFFFF
    i = f >> 22
    t = f & 0x3FFFFF
    l = T[i] + (((T[i + 1] - T[i]) * t) >> 22)
    return (m - 32) * LN2 + l


def trunc_div(a, b):
    """Signed division truncating toward zero, as C's."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def draw_of(h, w):
    u = (h >> 32) + 1
    return trunc_div(ln(u) * 65536, w), u


class Hierarchy:
    """The buckets of the dump, seen through one rule's class."""

    def __init__(self, dump):
        self.buckets = {}  # id -> (type, [(item, weight)])
        for b in dump["buckets"]:
            self.buckets[b["id"]] = (
                b["type_id"], [(it["id"], it["weight"]) for it in b["items"]])
        self.cls = {d["id"]: d.get("class") for d in dump["devices"]}
        self.rules = {}
        for r in dump["rules"]:
            take, choose, emit = r["steps"]
            assert take["op"] == "take" and emit["op"] == "emit"
            assert choose["op"] == "chooseleaf_firstn"
            name = take["item_name"]
            rcls = name.split("~", 1)[1] if "~" in name else None
            self.rules[r["rule_id"]] = (take["item"], TYPES[choose["type"]],
                                        rcls)
        self.views = {}

    def view(self, rcls):
        """Each bucket's items at the weights a rule of class rcls sees."""
        if rcls in self.views:
            return self.views[rcls]
        seen = {}

        def weight(item):
            if item >= 0:
                if rcls is None or self.cls.get(item) == rcls:
                    return self.osd_weight[item]
                return 0
            if item not in seen:
                seen[item] = [(i, weight(i)) for i, _ in self.buckets[item][1]]
            return sum(w for _, w in seen[item])

        for b in self.buckets:
            weight(b)
        self.views[rcls] = seen
        return seen

    def type_of(self, item):
        return 0 if item >= 0 else self.buckets[item][0]


def prepare(h):
    """An OSD's crush weight is its weight as an item of its bucket."""
    h.osd_weight = {}
    for _, items in h.buckets.values():
        for item, w in items:
            if item >= 0:
                h.osd_weight[item] = w


def straw2(view, bucket, a):
    """The item of bucket with the highest draw; ties: higher u, first."""
    best = None
    for item, w in view[bucket]:
        if w == 0:
            continue
        d, u = draw_of(item_hash(a, item), w)
        if best is None or d > best[0] or (d == best[0] and u > best[1]):
            best = (d, u, item)
    return None if best is None else best[2]


def descend(h, view, bucket, a, target):
    while True:
        item = straw2(view, bucket, a)
        if item is None:
            return None  # an empty bucket
        t = h.type_of(item)
        if t == target:
            return item
        if t < target:
            return None
        bucket = item


def accepted(states, k, osd):
    if osd not in states:
        return False
    up, r = states[osd]
    if not up:
        return False
    if r >= ONE:
        return True
    if r == 0:
        return False
    return (mix(k + (u32(osd) + 1) * G) & 0xFFFF) < r


def up_set(h, states, rule, pool, seed, size):
    root, domain, rcls = h.rules[rule]
    view = h.view(rcls)
    k = pg_key(pool, seed)
    domains, up = [], []
    for rep in range(min(size, 10)):
        for f in range(ATTEMPTS):
            r = rep + f
            a = attempt_key(k, r)
            d = descend(h, view, root, a, domain)
            if d is None or d in domains:
                continue
            leaf = d if domain == 0 else descend(h, view, d, a, 0)
            if leaf is None or not accepted(states, k, leaf):
                continue
            domains.append(d)
            up.append(leaf)
            break
    return up


def fixed16(x):
    """A number as 16.16, rounded to nearest, halves away from zero."""
    return 0 if x <= 0 else math.floor(x * 65536 + 0.5)


def osd_states(osds):
    states = {}
    for o in osds:
        r = fixed16(o["weight"]) if o["in"] else 0
        states[o["osd"]] = (bool(o["up"]), r)
    return states


def every_pg(crush_file, osd_file):
    """The up set of every PG of the osdmap's pools, as `pg map` has it."""
    with open(crush_file) as f:
        h = Hierarchy(json.load(f))
    with open(osd_file) as f:
        osdmap = json.load(f)
    prepare(h)
    states = osd_states(osdmap["osds"])
    out = []
    for p in osdmap["pools"]:
        for seed in range(p["pg_num"]):
            s = up_set(h, states, p["crush_rule"], p["pool"], seed,
                       p["size"])
            out.append("%d.%x [%s]" % (p["pool"], seed,
                                       ",".join(str(x) for x in s)))
    sys.stdout.write("".join(line + "\n" for line in out))
    return 0


def main():
    if len(sys.argv) == 3:
        return every_pg(sys.argv[1], sys.argv[2])
    if len(sys.argv) != 2:
        sys.stderr.write("usage: crush_ref.py MAPFILE\n"
                         "       crush_ref.py CRUSHDUMP OSDDUMP\n")
        return 2
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    h = Hierarchy(doc["crush"])
    prepare(h)
    states = osd_states(doc["osds"])
    out = []
    for q in doc["queries"]:
        s = up_set(h, states, q["rule"], q["pool"], q["seed"], q["size"])
        out.append("%d %d.%x %d -> [%s]" % (q["rule"], q["pool"], q["seed"],
                                           q["size"],
                                           ",".join(str(x) for x in s)))
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
