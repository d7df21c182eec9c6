#!/usr/bin/env bash
# gpu-limits.sh: where the reference kernels are not yet at the limit (the performance
# issue's cases), measured on the GPU machine from the folder prepare-gpu.sh built.
#
#   bash .gpu/gpu-limits.sh [OUT_DIR]        (OUT_DIR default: $OUT, else .gpu/limits)
#
#   1. versions, and the host's CPU (lscpu): the CPU rows' provenance;
#   2. at 1 GiB, u8/256 with 9.9 and u32/4096 with 9.14's kernels on uniform and one-value
#      input, with CUB and the CPU baselines (the naive loop, four tables, the tuned
#      single-core code, all cores), and the CPU baselines' scaling over 1 to all cores:
#      cpu-*.txt / .json;
#   3. the size sweep (bench --sizes, 1 MiB to 4095 MiB), 9.9 (u8/256) and 9.14's kernels
#      (u32/4096) on uniform input against the read kernel and CUB of the same run:
#      sizes-u8/sizes.json, sizes-u32/sizes.json and their tables;
#   4. the largest input a buffer can hold (4095 MiB; a buffer holds at most 2^32 - 1
#      elements, so the bench refuses 4096), timed: size-4095.txt;
#   5. Nsight Compute on 9.14 (u32/4096, 1 GiB) and 9.9 (u8/256, 16 MiB): which limit each
#      reaches (memory, L1/shared, issue): ncu-*.txt.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# COURSE_LANES_DIR, OUT_DIR ($1, else $OUT, else HERE/limits), COURSE_GIT_COMMIT,
# PATH and RUST_BACKTRACE, as every GPU script has them (crates/chapter/gpu-env.sh).
# shellcheck source=/dev/null
. "$HERE/gpu-env.sh" limits "$@"
START=$(date +%s)
say() { echo "=== [$(($(date +%s) - START))s] $*"; }
CH09="$HERE/ch09"

say "versions"
{
  date -u +"date %Y-%m-%d %H:%M UTC"
  echo "commit $(cat "$HERE/COMMIT" 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  nvcc --version | tail -n 1
  ncu --version | tail -n 1
  lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|MHz|L2|L3"
} 2>&1 | tee "$OUT_DIR/versions.txt"

say "CUB, compiled once for every bench below"
nvcc -O3 -arch=sm_90 -o "$OUT_DIR/cub_histogram" "$HERE/cub_histogram.cu" 2>&1 | tail -n 3
CUB="$OUT_DIR/cub_histogram"

say "1 GiB with CUB and the CPU baselines"
for dt in u8 u32; do
  st=9.9; [ "$dt" = u32 ] && st=9.14
  "$CH09" bench --dtype "$dt" --input uniform --input one-value --step "$st" --skip torch \
    --cub "$CUB" --budget-ms 3000 --out "$OUT_DIR/cpu-$dt" > "$OUT_DIR/cpu-$dt.txt" 2>&1
  grep -E "^$dt " "$OUT_DIR/cpu-$dt.txt"
done
for t in 1 2 4 8 16; do
  "$CH09" bench --dtype u8 --input uniform --step 9.9 --skip cub,torch --cpu-threads "$t" \
    --budget-ms 2000 --out "$OUT_DIR/cpu-threads-$t" > "$OUT_DIR/cpu-threads-$t.txt" 2>&1
  grep -E "threads x" "$OUT_DIR/cpu-threads-$t.txt" | tail -n 1
done

say "size sweep (bench --sizes)"
for dt in u8 u32; do
  st=9.9; [ "$dt" = u32 ] && st=9.14
  "$CH09" bench --sizes 1,4,16,64,256,1024,4095 --dtype "$dt" --step "$st" --input uniform \
    --skip cpu,torch --cub "$CUB" --out "$OUT_DIR/sizes-$dt" > "$OUT_DIR/sizes-$dt.txt" 2> "$OUT_DIR/sizes-$dt.log"
  cat "$OUT_DIR/sizes-$dt.txt"
done

say "4095 MiB of bytes (4096 is refused: a buffer holds at most 2^32 - 1 elements)"
"$CH09" bench --size-mib 4096 --dtype u8 --step 9.9 --skip cpu,torch,cub 2>&1 | tail -n 1
/usr/bin/time -v timeout 300 "$CH09" bench --size-mib 4095 --dtype u8 --step 9.9 --input uniform \
  --skip cpu,torch --cub "$CUB" --out "$OUT_DIR/size-u8-4095" > "$OUT_DIR/size-4095.txt" 2>&1
echo "exit $?" >> "$OUT_DIR/size-4095.txt"
grep -E "^u8 |Elapsed|Maximum resident|exit" "$OUT_DIR/size-4095.txt"

say "Nsight Compute"
ncu --clock-control none --kernel-name regex:histo_u32_shared --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
  --section Occupancy --section LaunchStats --section SchedulerStats \
  "$CH09" --device gpu --step 9.14 --bins 4096 --n 268435456 > "$OUT_DIR/ncu-9.14-u32-4096-1GiB.txt" 2>&1
ncu --clock-control none --kernel-name regex:histo_fastest --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
  --section Occupancy --section LaunchStats --section SchedulerStats \
  "$CH09" --device gpu --step 9.9 --n 16777216 > "$OUT_DIR/ncu-9.9-u8-16MiB.txt" 2>&1
grep -E "Duration|Throughput|Achieved Occupancy|Registers|Grid Size|Block Size|Warp Cycles|One or More|No Eligible" \
  "$OUT_DIR"/ncu-*.txt | head -n 40
say "done"
