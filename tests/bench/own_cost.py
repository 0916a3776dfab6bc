#!/usr/bin/env python3
"""A tracer's own instructions in a callgrind profile: the inclusive cost of
its hooks minus the inclusive cost of the calls they forward. A hook is a
function of the tracer's object that calls a function of the same name in
another object (the real one); its cost is that of the calls reaching it
from outside the object. What the forwarded calls cost, the driver's or
libc's own heap use included, is left out, so a heap layout the tracer
changes can neither hide nor add to its figure. Hooks nested in each other
(a runtime hook around the driver hook beneath it) count once: the outer
one's forwarded call holds the inner one's cost and is taken off.

own_cost.py OBJECT CALLGRIND_OUT: prints "OWN TOTAL", the tracer's own
instructions and the whole process's (callgrind's files written with
--compress-strings=no --compress-pos=no)."""
import collections
import sys


def edges(path, target):
    """Yields (caller inside, caller fn, callee inside, callee fn, cost) per
    call record, and the whole process's self cost at the end."""
    ob = cob = fn = cfn = None
    call = False
    total = 0
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("ob="):
                ob = cob = line[3:].strip()
            elif line.startswith("cob="):
                cob = line[4:].strip()
            elif line.startswith("fn="):
                fn, cob = line[3:].strip(), ob
            elif line.startswith("cfn="):
                cfn = line[4:].strip()
            elif line.startswith("calls="):
                call = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                fields = line.split()
                cost = int(fields[1]) if len(fields) > 1 else 0
                if call:
                    yield ob == target, fn, cob == target, cfn, cost
                    call, cob = False, ob
                else:
                    total += cost
    yield None, None, None, None, total


def own_cost(path, target):
    entered = collections.Counter()
    forwarded = collections.Counter()
    total = 0
    for inside, fn, callee_inside, cfn, cost in edges(path, target):
        if inside is None:
            total = cost
        elif callee_inside and not inside:
            entered[cfn] += cost
        elif inside and not callee_inside and cfn.split("@")[0] == fn:
            forwarded[fn] += cost
    own = sum(entered[hook] - forwarded[hook] for hook in forwarded)
    return own, total


if __name__ == "__main__":
    own, total = own_cost(sys.argv[2], sys.argv[1])
    print(own, total)
