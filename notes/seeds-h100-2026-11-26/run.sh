#!/usr/bin/env bash
# seeds-39's GPU run (issue 39, point 7): the SASS of kernel parameters and of constant
# memory, then `ch09 verify`, `ch09 constant` and `ch09 streams` on the GPU.
# Usage: bash .gpu/seeds39/run.sh OUT_DIR
set -u
D=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-/tmp/out}
mkdir -p "$OUT"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  ptxas --version | tail -1
  cuobjdump --version | tail -1
} > "$OUT/env.txt" 2>&1
ptxas -arch=sm_90 "$D/solutions.ptx" -o /tmp/sol.cubin >> "$OUT/env.txt" 2>&1
for f in histo_decrement letters_constant letters_shared_table; do
  echo "== $f"
  cuobjdump -sass -fun "$f" /tmp/sol.cubin
done > "$OUT/sass.txt" 2>&1
cd /tmp
export COURSE_LANES_DIR="$D/lanes"
timeout 60 "$D/ch09" verify --device gpu --step 9.2 --step 9.3 --step 9.5 --step 9.9 --step 9.14 > "$OUT/verify.txt" 2>&1
echo "exit $?" >> "$OUT/verify.txt"
for i in text uniform zeros; do
  echo "== --input $i"
  timeout 60 "$D/ch09" constant --device gpu --input "$i"
  echo "exit $?"
done > "$OUT/constant.txt" 2>&1
{
  echo "== default"
  timeout 100 "$D/ch09" streams --device gpu
  echo "exit $?"
  echo "== --n 67108864 --grid 66 --grid 132 --reps 5"
  timeout 60 "$D/ch09" streams --device gpu --n 67108864 --grid 66 --grid 132 --reps 5
  echo "exit $?"
} > "$OUT/streams.txt" 2>&1
tail -n 3 "$OUT"/*.txt
