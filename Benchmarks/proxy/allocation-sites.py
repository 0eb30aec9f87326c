#!/usr/bin/env python3
"""Reads `perf script` output of malloc probes (demangled) on stdin and prints the allocating
functions, per request: the first frame of each stack that is not malloc, the Swift runtime or a
standard-library container, and its caller. Used by allocations.sh (BENCH_SITES=1)."""
import collections
import re
import sys

requests = float(sys.argv[1])
plumbing = re.compile(
    r'^(malloc|swift_slowAlloc|swift_allocObject|swift::|_swift_|__swift_|\[unknown\]|'
    r'(specialized )?(static )?_ContiguousArray|_allocateStringStorage|(specialized )?(static )?__StringStorage|'
    r'(specialized )?(static )?String\.|_StringGuts|outlined )')


def stacks(lines):
    stack = []
    for line in lines:
        if not line.strip():
            if stack:
                yield stack
            stack = []
        elif line[0] in ' \t':
            parts = line.strip().split(None, 1)
            frame = re.sub(r'\+0x[0-9a-f]+', '', parts[-1])
            stack.append(re.sub(r' \((/|\[).*\)$', '', frame))
    if stack:
        yield stack


sites = collections.Counter()
total = 0
for stack in stacks(sys.stdin):
    total += 1
    own = [frame for frame in stack if not plumbing.match(frame)]
    sites[' <- '.join(frame[:60] for frame in own[:2]) or '(libcurl or the runtime: no frame pointers)'] += 1
print('  %.1f sampled per request' % (total / requests))
for site, count in sites.most_common(24):
    print('  %6.2f  %s' % (count / requests, site))
