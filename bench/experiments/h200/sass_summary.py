"""Stall samples and executed-instruction mix of an ncu SASS source page
(gemv_ncu.sh's *-sass.csv): python3 sass_summary.py FILE.csv [WEIGHTS]
(WEIGHTS: weights of the GEMV, for thread instructions per weight)."""
import collections
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
hdr, data = rows[1], rows[2:]
col = {h: i for i, h in enumerate(hdr)}
stalls = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
tot = collections.Counter()
mix = collections.Counter()
for r in data:
    for s in stalls:
        tot[s] += int(r[col[s]] or 0)
    words = r[col["Source"]].split()
    if words:
        op = words[1] if words[0].startswith("@") else words[0]
        mix[op.split(".")[0]] += int(r[col["Instructions Executed"]] or 0)
T, E = sum(tot.values()), sum(mix.values())
print("stall samples %d" % T)
for s, v in tot.most_common(10):
    print("  %-24s %6d %5.1f%%" % (s, v, 100.0 * v / T))
print("warp instructions executed %d" % E)
if len(sys.argv) > 2:
    print("thread instructions per weight %.2f" % (32.0 * E / float(sys.argv[2])))
for o, v in mix.most_common(16):
    print("  %-8s %10d %5.1f%%" % (o, v, 100.0 * v / E))
