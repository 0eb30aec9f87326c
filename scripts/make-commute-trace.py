#!/usr/bin/env python3
"""Writes rules/traces/commute.csv: a made-up, repeatable commute by train, as `seconds,kbps`.

Not a recording: the numbers are drawn from a fixed seed so that the file is the same on every
machine and anyone can see how it was made (and change it). The shape follows what a phone on a
suburban train sees: good LTE between stations, a slow fall as the train leaves coverage, a tunnel
where next to nothing gets through, a crowded station, and recovery. Each row holds from its second
until the next row; hlschaos loops the file at its end. Run from the repository's root:

    python3 scripts/make-commute-trace.py
"""
import random

random.seed(20261128)

# (seconds, low kbps, high kbps): each stretch's rate is drawn every second between its bounds.
stretches = [
    (20, 4000, 7000),   # open track, good LTE
    (10, 1500, 3000),   # leaving coverage
    (8, 400, 900),      # the edge of a cell
    (12, 30, 120),      # tunnel: next to nothing
    (10, 800, 2000),    # out of the tunnel, a weak cell
    (15, 2500, 5000),   # recovering
    (15, 600, 1500),    # crowded station: a shared cell
    (20, 3000, 6000),   # open track again
]

rows = ["seconds,kbps", "# made by scripts/make-commute-trace.py (seed 20261128); a made-up commute, not a recording"]
second = 0
for length, low, high in stretches:
    for _ in range(length):
        rows.append(f"{second},{random.randint(low, high)}")
        second += 1

with open("rules/traces/commute.csv", "w") as out:
    out.write("\n".join(rows) + "\n")
print(f"rules/traces/commute.csv: {second} s, {len(rows) - 2} rows")
