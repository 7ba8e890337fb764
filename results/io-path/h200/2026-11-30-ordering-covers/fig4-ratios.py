#!/usr/bin/python3
"""Per point of two Figure 4 sweep folders (their p000-p004 CSVs): new / old rate, the geometric
mean over all points, reads and writes apart, the largest changes and the best point of each curve
of the new one. Usage: fig4-ratios.py OLD_FOLDER NEW_FOLDER."""
import csv
import glob
import math
import sys


def load(d):
    r={}
    for f in sorted(glob.glob(d+'/p00[0-4]_*.csv')):
        for row in csv.DictReader(open(f)):
            k=(int(row['ssd_count']),int(row['io_size']),row['op'],int(row['threads']))
            r[k]=float(row['iops'])
    return r
old=load(sys.argv[1]); new=load(sys.argv[2])
rs=[]
for k in sorted(new):
    if k in old: rs.append((new[k]/old[k],k,old[k],new[k]))
g=math.exp(sum(math.log(x[0]) for x in rs)/len(rs))
print(f"points {len(rs)} geomean {g:.4f} min {min(rs)[0]:.3f} max {max(rs)[0]:.3f}")
reads=[x for x in rs if x[1][2]=='read']; writes=[x for x in rs if x[1][2]=='write']
for name,sub in (('reads',reads),('writes',writes)):
    gg=math.exp(sum(math.log(x[0]) for x in sub)/len(sub)); print(f"  {name}: geomean {gg:.4f} min {min(sub)[0]:.3f} max {max(sub)[0]:.3f}")
print("largest changes:")
for x in sorted(rs,key=lambda x:-abs(math.log(x[0])))[:14]:
    print(f"  {x[1]} {x[2]/1e6:.2f} -> {x[3]/1e6:.2f} M ({x[0]:.3f})")
# best per curve
print("best per curve (new):")
for n in (1,2,4,8,10):
    row=[]
    for s,op in ((512,'read'),(512,'write'),(4096,'read'),(4096,'write')):
        row.append(max(v for k,v in new.items() if k[0]==n and k[1]==s and k[2]==op)/1e6)
    print(n, ' '.join(f"{v:.2f}" for v in row))
