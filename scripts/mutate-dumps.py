#!/usr/bin/env python3
"""Writes N mutated copies of the minidumps in SRCDIR into OUTDIR, for
batch memory and robustness runs (docs/performance.md).

    usage: scripts/mutate-dumps.py SRCDIR OUTDIR N [FLIPS]

Copy i is dump i % len(dumps) (sorted by name) with FLIPS (default 8)
bytes, chosen by a generator seeded with i, replaced by random values
past the first 4 KiB (the header and stream directory stay intact, so most
copies still parse; the flips land in thread stacks, contexts, module
records and memory, giving other stacks, other signatures and broken
streams). Every tenth copy is also truncated at a random length.
Deterministic: the same arguments give the same files.
"""
import os
import random
import sys


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    flips = int(sys.argv[4]) if len(sys.argv) == 5 else 8
    dumps = sorted(os.path.join(src, f) for f in os.listdir(src) if f.endswith(".dmp"))
    if not dumps:
        sys.exit("no .dmp files in " + src)
    data = [open(d, "rb").read() for d in dumps]
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        rng = random.Random(i)
        b = bytearray(data[i % len(data)])
        for _ in range(flips):
            b[rng.randrange(4096, len(b))] = rng.randrange(256)
        if i % 10 == 9:
            b = b[: rng.randrange(32, len(b))]
        name = "%05d-%s" % (i, os.path.basename(dumps[i % len(dumps)]))
        with open(os.path.join(out, name), "wb") as f:
            f.write(b)


if __name__ == "__main__":
    main()
