#!/usr/bin/env python3
"""The opcode mix of a kernel's hottest loop: reads `cuobjdump -sass -fun KERNEL` output on
stdin, finds the loop (a backward branch) that encloses the most instructions of OPCODE
(default ATOMS), and prints its length and its opcodes by count. How the instructions per
counted byte of 9.9 and its variants were counted (notes/fastest-limit-2026-11-26/):

    ptxas -arch=sm_90 solutions.ptx -o s.cubin
    cuobjdump -sass -fun histo_fastest s.cubin | python3 sass-loop-mix.py [OPCODE]
"""
import re, sys, collections
if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
    print(__doc__.strip())
    sys.exit(0)
key = sys.argv[1] if len(sys.argv) > 1 else "ATOMS"
ins = []
for line in sys.stdin:
    m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*(.*?);", line)
    if m:
        ins.append((int(m.group(1), 16), m.group(3), m.group(4)))
addr = {a: i for i, (a, _, _) in enumerate(ins)}
best = None
for i, (a, op, args) in enumerate(ins):
    if op.startswith("BRA"):
        t = re.search(r"0x([0-9a-f]+)", args)
        if t and int(t.group(1), 16) <= a:
            j = addr.get(int(t.group(1), 16))
            if j is None: continue
            body = ins[j:i + 1]
            n = sum(1 for _, o, _ in body if o.startswith(key))
            if best is None or n > best[0]:
                best = (n, body)
if best is None:
    sys.exit(f"no loop with {key} in the SASS on stdin (is it `cuobjdump -sass -fun KERNEL` output?)")
n, body = best
mix = collections.Counter(o.split(".")[0] for _, o, _ in body)
print(f"loop of {len(body)} instructions, {n} {key}: " + ", ".join(f"{c} {o}" for o, c in mix.most_common()))
