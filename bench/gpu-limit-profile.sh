#!/usr/bin/env bash
# gpu-limit-profile.sh: chapter 9's fastest kernels at the limit of the GPU they run on, and
# why, in one call, from the folder that bench/prepare-gpu.sh built (no Rust
# needed there). Written for the H200 (issue 40), runs on any GPU.
#
#   bash .gpu/gpu-limit-profile.sh [OUT_DIR] [PARTS]   (OUT_DIR default: $OUT, else .gpu/limit;
#                                                      PARTS default: asgp)
#
# Parts: a (1 to 4 and 8, about 1.5 minutes on an H100), s (5, 1 minute), g (6, half a
# minute), p (7, half a minute); `b` stands for `sgp`:
#   1. versions, clocks and the CUB program (nvcc, this GPU's sm_XY);
#   2. the variant sweep at 1 GiB on the four byte inputs: 9.9 (`histo_fastest`, which
#      counts byte values), `fast_bin_columns` (9.9 before: bins in the loop),
#      `fast_wide_columns`, the other variants, CUB and the read kernel: variants/;
#   3. Nsight Compute at 1 GiB, uniform and one-value bytes, on 9.9 and on
#      `fast_bin_columns`, and on `u32_vectors` (u32, uniform): which unit is the limit
#      (SpeedOfLight, ComputeWorkloadAnalysis's pipes, InstructionStats, WarpStateStats,
#      MemoryWorkloadAnalysis, SchedulerStats, Occupancy, the SM clock): ncu-*.txt;
#   4. the bench right after ncu let go of the GPU, at 1 MiB: the warm-up's first and last
#      batch medians (the bench warms until its times settle): warm/; then 9.14's kernels
#      and CUB on the four u32 inputs at 1 GiB: u32/;
#   5. the size sweep, 1 MiB to 4095 MiB, bytes (9.9) and u32 (9.14's kernels), uniform,
#      against the read kernel and CUB: sizes-u8/, sizes-u32/;
#   6. the byte steps on each other's grids (`bench --same-grid`) at 256 MiB, uniform and
#      one-value: same-grid/;
#   7. Nsight Compute on 9.7 and 9.8 at 64 MiB, uniform and 90 % one value (the full set,
#      and the source view of 9.8's SASS): ncu-9.7-9.8-*.txt, source-9.8-*.csv;
#   8. the metrics ncu knows about shared memory (for the fidelity script): ncu-metrics.txt.
# Everything goes into OUT_DIR/limit-PARTS.tgz, with a summary printed last.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=/dev/null
. "$HERE/gpu-env.sh" limit "${1:-}"
PARTS=${2:-asgp}
PARTS=${PARTS/b/sgp}
RES=$(mktemp -d)/limit-$PARTS
mkdir -p "$RES"
START=$(date +%s)
say() { echo "=== [$(($(date +%s) - START))s] $*"; }
CH09="$HERE/ch09"

say "versions"
{
  date -u +"date %Y-%m-%d %H:%M UTC"
  echo "commit $(cat "$HERE/COMMIT" 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv
  nvcc --version | tail -n 1
  ncu --version | tail -n 1
} 2>&1 | tee "$RES/versions.txt"
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
nvcc -O3 "-arch=sm_${CC:-90}" -o "$RES/cub_histogram" "$HERE/cub_histogram.cu" >"$RES/nvcc.log" 2>&1 ||
  tail -n 5 "$RES/nvcc.log"
CUB="$RES/cub_histogram"
ncu --query-metrics 2>/dev/null | grep -iE "shared|bank_conflict" >"$RES/ncu-metrics.txt"

if [[ $PARTS == *a* ]]; then
say "the variant sweep at 1 GiB"
mkdir -p "$RES/variants" "$RES/warm"
"$CH09" bench --variants --skip cpu,torch --cub "$CUB" --budget-ms 800 --out "$RES/variants" \
  >"$RES/variants/table.txt" 2>"$RES/variants.log" || echo "variants exit $?"
grep -E "^u8 |targets|warmed" "$RES/variants/table.txt" | grep -E "histo_fastest |fast_bin|fast_wide|cub|read_bw|warmed|targets" 

say "Nsight Compute at 1 GiB: 9.9 against 9.9 before, and u32_vectors"
prof() { # prof NAME KERNEL ARGS...: one launch of KERNEL under ncu
  local name=$1 kernel=$2
  shift 2
  timeout 150 ncu --clock-control none --kernel-name "regex:^$kernel\$" --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats \
    --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats \
    --section Occupancy --section LaunchStats \
    --metrics sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__mio_inst_issued.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    "$CH09" bench --reps 1 --warmup 0 --skip cpu,torch,cub "$@" --out "$RES/ncu-run" \
    >"$RES/ncu-$name.txt" 2>&1
  echo "ncu $name exit $?"
}
prof "9.9-uniform" histo_fastest --dtype u8 --step 9.9 --input uniform
prof "9.9-one-value" histo_fastest --dtype u8 --step 9.9 --input one-value
prof "9.9-before-uniform" fast_bin_columns --variants --input uniform
prof "u32_vectors-uniform" u32_vectors --dtype u32 --input uniform --step 9.14
rm -rf "$RES/ncu-run"
grep -hE "histo_fastest|fast_bin_columns|u32_vectors|Duration|DRAM Throughput|Compute \(SM\) Throughput|L1/TEX Cache|Issue Slots Busy|Executed Ipc A|highest-utilized|per_second|pipe_alu|pipe_fma|pipe_lsu|mio_inst|Registers Per|Achieved Occupancy" \
  "$RES"/ncu-9.9-*.txt "$RES"/ncu-u32*.txt | head -n 90

say "the bench right after ncu: the warm-up at 1 MiB"
"$CH09" bench --size-mib 1 --step 9.9 --input uniform --skip cpu,torch,cub --out "$RES/warm" \
  >"$RES/warm/table.txt" 2>"$RES/warm.log"
grep -E "warmed|histo_fastest|read_bandwidth" "$RES/warm/table.txt"

say "9.14's kernels and CUB on the four u32 inputs at 1 GiB"
timeout 150 "$CH09" bench --dtype u32 --step 9.14 --skip cpu,torch --cub "$CUB" --budget-ms 800 \
  --out "$RES/u32" >"$RES/u32.txt" 2>"$RES/u32.log"
echo "u32 exit $?"
grep -E "^u32 |u32 " "$RES/u32.txt" | grep -E "u32_vectors|cub|targets| u32 "
fi

if [[ $PARTS == *s* ]]; then
say "the size sweep (bench --sizes), u8 and u32"
for dt in u8 u32; do
  st=9.9; [ "$dt" = u32 ] && st=9.14
  timeout 240 "$CH09" bench --sizes 1,4,16,64,256,1024,4095 --dtype "$dt" --step "$st" --input uniform \
    --skip cpu,torch --cub "$CUB" --out "$RES/sizes-$dt" >"$RES/sizes-$dt.txt" 2>"$RES/sizes-$dt.log"
  echo "sizes $dt exit $?"
  cat "$RES/sizes-$dt.txt" | tail -n 12
done

fi

if [[ $PARTS == *g* ]]; then
say "the byte steps on each other's grids (bench --same-grid) at 256 MiB"
timeout 150 "$CH09" bench --same-grid --dtype u8 --size-mib 256 --input uniform --input one-value \
  --skip cpu,torch --cub "$CUB" --budget-ms 800 --out "$RES/same-grid" >"$RES/same-grid.txt" 2>"$RES/same-grid.log"
echo "same-grid exit $?"
grep -E "same grid|^u8 " "$RES/same-grid.txt" | head -n 40

fi

if [[ $PARTS == *p* ]]; then
say "Nsight Compute on 9.7 and 9.8 at 64 MiB"
for input in uniform skew:90; do
  tag=${input/:/}
  timeout 120 ncu --clock-control none --set full --kernel-name regex:"^histo_(aggregate|warp_aggregate)\$" \
    --launch-count 2 "$CH09" --device gpu --step 9.7 --step 9.8 --n 67108864 --input "$input" \
    >"$RES/ncu-9.7-9.8-$tag.txt" 2>&1
  echo "ncu 9.7/9.8 $tag exit $?"
  timeout 120 ncu --clock-control none --section SourceCounters --kernel-name regex:"^histo_warp_aggregate\$" \
    --launch-count 1 --page source --csv --print-source sass \
    "$CH09" --device gpu --step 9.8 --n 67108864 --input "$input" >"$RES/source-9.8-$tag.csv" 2>&1
  echo "ncu source 9.8 $tag exit $?"
done
grep -hE "histo_(aggregate|warp_aggregate)|Duration|Compute \(SM\) Throughput|DRAM Throughput|Issue Slots Busy|Warp Cycles Per Issued|highest-utilized" \
  "$RES"/ncu-9.7-9.8-*.txt | head -n 40

fi
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >>"$RES/versions.txt" 2>&1
tar -C "$(dirname "$RES")" -czf "$OUT_DIR/limit-$PARTS.tgz" "limit-$PARTS"
ls -la "$OUT_DIR"
say "done"
