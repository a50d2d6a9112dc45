#!/usr/bin/env python3
"""Summarises gemv_graph's GEMV_TRACE timelines (session 38): for the graph's
middle launches, each CTA's times relative to the end of the previous
launch's last CTA ("prev"), which is when the PDL wait can release.

Usage: analyze.py TRACE...
"""
import collections
import statistics
import sys


def pct(xs, ps=(0, 10, 50, 90, 100)):
    xs = sorted(xs)
    return " ".join("%7.2f" % (xs[min(len(xs) - 1, int(p / 100 * len(xs)))] / 1000) for p in ps)


for path in sys.argv[1:]:
    recs = collections.defaultdict(list)
    stamps = set()
    for line in open(path):
        launch, cta, sm, t0, t1, t2, t3, t4 = map(int, line.split())
        recs[launch].append((cta, sm, t0, t1, t2, t3, t4))
        stamps.update((t0, t1, t2, t3, t4))
    s = sorted(stamps)
    res = min(b - a for a, b in zip(s, s[1:]) if b > a)
    launches = sorted(k for k in recs if k >= 0)
    ends = {k: max(r[6] for r in recs[k]) for k in launches}
    mid = [k for k in launches if 8 <= k < len(launches) - 8 and k - 1 in ends]
    period = statistics.median(ends[k] - ends[k - 1] for k in mid) / 1000
    print(f"== {path}: {len(launches)} launches, {len(recs[launches[0]])} CTAs each, "
          f"timer step {res} ns; period (last end to last end) {period:.2f} us")
    rows = collections.defaultdict(list)
    for k in mid:
        prev = ends[k - 1]
        first_entry = min(r[2] for r in recs[k])
        rows["entry - prev"] += [r[2] - prev for r in recs[k]]
        rows["wait released - prev"] += [r[3] - prev for r in recs[k]]
        rows["first block - entry"] += [r[4] - r[2] for r in recs[k]]
        rows["first block - prev"] += [r[4] - prev for r in recs[k]]
        rows["loop done - first block"] += [r[5] - r[4] for r in recs[k]]
        rows["end - loop done"] += [r[6] - r[5] for r in recs[k]]
        rows["end - prev"] += [r[6] - prev for r in recs[k]]
        rows["first entry - prev (launch)"].append(first_entry - prev)
        rows["last entry - prev (launch)"].append(max(r[2] for r in recs[k]) - prev)
        rows["last end - prev (launch)"].append(ends[k] - prev)
        rows["CTAs entered before prev"].append(1000 * sum(r[2] < prev for r in recs[k]))
    print("  %-30s %7s %7s %7s %7s %7s   (us)" % ("", "p0", "p10", "p50", "p90", "p100"))
    for name, xs in rows.items():
        print("  %-30s %s" % (name, pct(xs)))
    sms = collections.Counter(r[1] for k in mid for r in recs[k])
    per = collections.Counter(sms.values())
    print("  CTAs an SM over the middle launches:", dict(sorted(per.items())))
