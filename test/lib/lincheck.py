#!/usr/bin/env python3
"""lincheck.py: is a history of register operations linearizable?

Usage: lincheck.py HISTORY        check a history (JSON lines, below)
       lincheck.py --self-test    check the checker on histories known
                                  to be linearizable or not

A history line is one operation of one client on one key:

  {"client": C, "key": K, "op": "write"|"read", "value": V,
   "start": T0, "end": T1, "outcome": "ok"|"fail"|"unknown"}

start and end are the invocation and completion times (one clock for
every client).  outcome "ok": the operation took effect between start and
end (a read returned value); "fail": it had no effect (a write refused
before it was sent: EAGAIN), so it is left out; "unknown": a write whose
client cannot know (ETIMEDOUT, a lost connection), which may take effect
at any time after start, or never.  A read that failed is left out.

Each key is a register checked on its own (linearizability is local):
the first operation on a key must be a read of its initial value, or the
initial values come as {"init": {K: V}} lines.  The search is Wing and
Gong's, with the memo of Lowe (Knossos does the same): linearize, in
turn, each operation that may come first (no other operation ended
before it started), while the register's value allows it, remembering
the (operations done, value) states already tried.  A key's history is
linearizable when every operation with outcome ok is linearized.

Exit status 0 when every key is linearizable, 1 when one is not (its
name and a minimal window of its history on stderr), 2 for a bad
history.  Python 3.9 or later, no modules beyond the standard library.
"""

import json
import sys

INF = float("inf")


class Op:
    __slots__ = ("i", "client", "kind", "value", "start", "end", "must")

    def __init__(self, i, d):
        self.i = i
        self.client = d.get("client")
        self.kind = d["op"]
        self.value = d.get("value")
        self.start = float(d["start"])
        unknown = d.get("outcome") == "unknown"
        self.end = INF if unknown or d.get("end") is None else float(d["end"])
        self.must = not unknown

    def __repr__(self):
        end = "?" if self.end == INF else "%.3f" % self.end
        return "%s %s(%r) [%.3f, %s] client %s" % (
            "unknown" if not self.must else "ok", self.kind, self.value,
            self.start, end, self.client)


def check_key(ops, init):
    """True when ops (of one key) linearize from value init."""
    n = len(ops)
    ops = sorted(ops, key=lambda o: o.start)
    need = sum(1 for o in ops if o.must)
    seen = set()
    # Depth-first, explicit stack: (done mask, value, ok ops done).
    stack = [(0, init, 0)]
    while stack:
        done, value, nok = stack.pop()
        if nok == need:
            return True
        if (done, value) in seen:
            continue
        seen.add((done, value))
        # The earliest completion of the operations not done bounds
        # which may be linearized next: none that started after it.
        horizon = INF
        for k in range(n):
            if not done >> k & 1 and ops[k].end < horizon:
                horizon = ops[k].end
        for k in range(n):
            if done >> k & 1:
                continue
            o = ops[k]
            if o.start > horizon:
                break
            if o.kind == "read":
                if o.value != value:
                    continue
                nv = value
            else:
                nv = o.value
            stack.append((done | 1 << k, nv, nok + o.must))
    return False


def load(lines):
    hist = {}
    init = {}
    for no, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            d = json.loads(line)
        except ValueError as e:
            raise SystemExit("line %d: not JSON: %s" % (no, e)) from None
        if "init" in d:
            init.update(d["init"])
            continue
        for k in ("key", "op", "start"):
            if k not in d:
                raise SystemExit("line %d: no %r" % (no, k))
        if d["op"] not in ("read", "write"):
            raise SystemExit("line %d: op %r is neither read nor write"
                             % (no, d["op"]))
        if d.get("outcome") == "fail":
            continue
        if d["op"] == "read" and d.get("outcome") != "ok":
            continue
        hist.setdefault(d["key"], []).append(Op(no, d))
    return hist, init


def check(hist, init, out=sys.stderr):
    bad = []
    for key in sorted(hist):
        ops = hist[key]
        if key in init:
            start = init[key]
        else:
            first = min(ops, key=lambda o: o.start)
            if first.kind != "read" or not first.must:
                print("key %s: no initial value (no init line, and its "
                      "first operation is not a read)" % key, file=out)
                bad.append(key)
                continue
            start = first.value
        if not check_key(ops, start):
            bad.append(key)
            # The shortest failing prefix (in order of invocation), found
            # by bisection: its last operation is where it goes wrong.
            ops = sorted(ops, key=lambda o: o.start)
            lo, hi = 1, len(ops)
            while lo < hi:
                mid = (lo + hi) // 2
                if check_key(ops[:mid], start):
                    lo = mid + 1
                else:
                    hi = mid
            print("key %s: NOT linearizable (%d operations, from %r); "
                  "the first %d are not already:" % (key, len(ops), start, lo),
                  file=out)
            for o in ops[max(0, lo - 8):lo]:
                print("    %r" % o, file=out)
    return bad


def self_test():
    def h(*ops):
        return [json.dumps(dict(zip(("client", "key", "op", "value",
                                     "start", "end", "outcome"), o)))
                for o in ops]
    cases = [
        ("sequential", True, h(
            (1, "x", "read", 0, 0, 1, "ok"),
            (1, "x", "write", 5, 2, 3, "ok"),
            (2, "x", "read", 5, 4, 5, "ok"))),
        ("concurrent write, read either value", True, h(
            (1, "x", "read", 0, 0, 1, "ok"),
            (1, "x", "write", 5, 2, 6, "ok"),
            (2, "x", "read", 0, 3, 4, "ok"),
            (3, "x", "read", 5, 4.5, 5, "ok"))),
        ("stale read after an acknowledged write", False, h(
            (1, "x", "read", 0, 0, 1, "ok"),
            (1, "x", "write", 5, 2, 3, "ok"),
            (2, "x", "read", 0, 4, 5, "ok"))),
        ("a value going back", False, h(
            (1, "x", "read", 0, 0, 1, "ok"),
            (1, "x", "write", 5, 2, 3, "ok"),
            (2, "x", "write", 7, 2, 3, "ok"),
            (3, "x", "read", 7, 4, 5, "ok"),
            (3, "x", "read", 5, 6, 7, "ok"))),
        ("an unknown write that took effect late", True, h(
            (1, "x", "read", 0, 0, 1, "ok"),
            (1, "x", "write", 5, 2, None, "unknown"),
            (2, "x", "read", 0, 4, 5, "ok"),
            (2, "x", "read", 5, 6, 7, "ok"))),
        ("an unknown write that never did", True, h(
            (1, "x", "read", 0, 0, 1, "ok"),
            (1, "x", "write", 5, 2, None, "unknown"),
            (2, "x", "read", 0, 6, 7, "ok"))),
        ("a refused write that is read", False, h(
            (1, "x", "read", 0, 0, 1, "ok"),
            (1, "x", "write", 5, 2, 3, "fail"),
            (2, "x", "read", 5, 6, 7, "ok"))),
        ("keys apart: one bad", False, h(
            (1, "x", "read", 0, 0, 1, "ok"),
            (1, "y", "read", 1, 0, 1, "ok"),
            (1, "y", "write", 2, 2, 3, "ok"),
            (2, "x", "write", 3, 2, 3, "ok"),
            (2, "x", "read", 0, 4, 5, "ok"))),
    ]
    # A long history of three clients, linearizable by construction.
    import random
    rng = random.Random(7)
    lines = [json.dumps({"init": {"z": 0}})]
    t, cur = 0.0, 0
    for i in range(300):
        c = rng.randrange(3)
        d = rng.uniform(0.5, 2.0)
        if rng.random() < 0.5:
            cur = rng.randrange(4)
            lines.append(json.dumps({"client": c, "key": "z", "op": "write",
                                     "value": cur, "start": t - d,
                                     "end": t + d, "outcome": "ok"}))
        else:
            lines.append(json.dumps({"client": c, "key": "z", "op": "read",
                                     "value": cur, "start": t - d,
                                     "end": t + d, "outcome": "ok"}))
        t += 1.0
    cases.append(("300 overlapping operations", True, lines))
    failed = 0
    for name, want, lines in cases:
        hist, init = load(lines)
        got = not check(hist, init, out=open("/dev/null", "w"))
        print("%s %s: %s" % ("ok" if got == want else "FAILED", name,
                             "linearizable" if got else "not linearizable"))
        failed += got != want
    return 1 if failed else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        hist, init = load(f)
    bad = check(hist, init)
    nops = sum(len(v) for v in hist.values())
    if bad:
        print("lincheck: %d of %d keys not linearizable: %s"
              % (len(bad), len(hist), " ".join(bad)))
        return 1
    print("lincheck: %d keys, %d operations: linearizable" % (len(hist), nops))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
