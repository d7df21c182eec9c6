#!/usr/bin/env bash
# gpu-variants.sh: 9.9's histo_fastest against its experimental variants on a real GPU, in
# one call, from the folder that bench/prepare-gpu.sh built (no Rust needed).
#
#   bash .gpu/gpu-variants.sh [OUT_DIR]        (OUT_DIR default: $OUT, else .gpu/out-variants)
#
# In order, each step time-limited, the whole under 6 minutes:
#   1. versions; CUB's program starts compiling in the background (nvcc, this GPU's sm_XY);
#   2. compute-sanitizer --tool racecheck over demo-racecheck (9.5 without its barriers,
#      plain shared stores and loads): its summary must report hazards;
#   3. the variant sweep (`ch09 bench --variants`) at 1 GiB: histo_fastest at 512, 256 and
#      1024 threads, fast_run_length, fast_popc, fast_warp_bins, fast_lane_bins, CUB and
#      the read-bandwidth reference
#      on the four u8 inputs, every result checked against the CPU's histogram;
#   4. ncu on histo_fastest and on fast_popc (one copy of the bins) on the uniform input
#      (256 MiB, one profiled launch each; ncu's defaults: caches flushed, clocks at base),
#      the sections SpeedOfLight, MemoryWorkloadAnalysis, ComputeWorkloadAnalysis,
#      Occupancy, WarpStateStats, as text.
# OUT_DIR gets at most 7 small files: variants-table.txt, bench.csv, bench.json,
# variants-progress.log, racecheck-demo.log, ncu.txt, nvcc.log. Exit status 0 when the
# sweep's results were all right and racecheck caught the demo's race.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# COURSE_LANES_DIR, OUT_DIR ($1, else $OUT, else HERE/out-variants), COURSE_GIT_COMMIT,
# PATH and RUST_BACKTRACE, as every GPU script has them (crates/chapter/gpu-env.sh).
# shellcheck source=/dev/null
. "$HERE/gpu-env.sh" out-variants "$@"
WORK=$(mktemp -d)
START=$(date +%s)
LIMIT_S=340 # the script's own limit, under 6 minutes
SUMMARY=()
FAILED=0

elapsed() { echo $(($(date +%s) - START)); }
# limit MAX: MAX seconds, or what is left of LIMIT_S minus RESERVE when that is less; >= 10.
limit() {
  local left=$((LIMIT_S - $(elapsed) - ${2:-0}))
  [ "$left" -lt 10 ] && left=10
  [ "$1" -lt "$left" ] && echo "$1" || echo "$left"
}
step() { echo; echo "=== [$(elapsed)s] $*"; }
result() { SUMMARY+=("$1"); echo ">>> $1"; }
must() { # must NAME STATUS
  if [ "$2" -eq 0 ]; then result "ok      $1"; else result "FAILED  $1 (exit $2)"; FAILED=1; fi
}

# --- 1. versions -----------------------------------------------------------------------
step "versions (commit $COURSE_GIT_COMMIT, output in $OUT_DIR)"
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,clocks.max.sm --format=csv 2>/dev/null ||
  echo "nvidia-smi failed"
SANITIZER=$(command -v compute-sanitizer || true)
NCU=$(command -v ncu || true)
if [ -z "$NCU" ]; then
  for c in /usr/local/cuda*/bin/ncu /usr/local/cuda*/nsight-compute*/ncu /opt/nvidia/nsight-compute/*/ncu; do
    [ -x "$c" ] && NCU=$c && break
  done
fi
echo "compute-sanitizer: ${SANITIZER:-not found}; ncu: ${NCU:-not found}"
[ -n "$NCU" ] && "$NCU" --version | tail -n 1
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
ARCH=sm_${CC:-90}
NVCC_PID=""
if command -v nvcc >/dev/null; then
  echo "compiling cub_histogram.cu for $ARCH in the background"
  (nvcc -O3 "-arch=$ARCH" -o "$WORK/cub_histogram" "$HERE/cub_histogram.cu" >"$OUT_DIR/nvcc.log" 2>&1) &
  NVCC_PID=$!
fi

# --- 2. racecheck on the demo ----------------------------------------------------------
step "compute-sanitizer --tool racecheck ./ch09 demo-racecheck --device gpu"
if [ -n "$SANITIZER" ]; then
  timeout "$(limit 100 200)" "$SANITIZER" --tool racecheck --print-limit 6 \
    "$HERE/ch09" demo-racecheck --device gpu >"$OUT_DIR/racecheck-demo.log" 2>&1
  rc=$?
  grep -v '^=========     ' "$OUT_DIR/racecheck-demo.log" | tail -n 30
  line=$(grep -E 'RACECHECK SUMMARY' "$OUT_DIR/racecheck-demo.log" | tail -n 1)
  caught=1
  case "$line" in
    "" | *"SUMMARY: 0 hazards"*) ;;
    *) caught=0 ;;
  esac
  must "racecheck catches the barrier-less kernel (exit $rc): ${line:-no summary}" $caught
else
  result "SKIPPED racecheck (compute-sanitizer not found)"
fi

# --- 3. the variant sweep --------------------------------------------------------------
step "bench --variants"
CUB=""
if [ -n "$NVCC_PID" ]; then
  wait "$NVCC_PID"
  if [ -x "$WORK/cub_histogram" ]; then
    CUB="$WORK/cub_histogram"
  else
    echo "nvcc failed; CUB is left out:"
    tail -n 5 "$OUT_DIR/nvcc.log"
  fi
fi
remain=$((LIMIT_S - $(elapsed) - 100)) # 100 s for ncu
if [ "$remain" -ge 120 ]; then SIZE=1024; else SIZE=256; fi
echo "$remain s for the sweep: inputs of $SIZE MiB"
args=(bench --variants --size-mib "$SIZE" --budget-ms 500 --out "$WORK/bench")
[ -n "$CUB" ] && args+=(--cub "$CUB") || args+=(--skip cub)
[ -f "$HERE/bench-text.md" ] && args+=(--text "$HERE/bench-text.md")
timeout $((remain > 40 ? remain : 40)) "$HERE/ch09" "${args[@]}" \
  >"$OUT_DIR/variants-table.txt" 2>"$OUT_DIR/variants-progress.log"
rc=$?
cat "$OUT_DIR/variants-table.txt"
tail -n 3 "$OUT_DIR/variants-progress.log"
cp "$WORK/bench/bench.csv" "$WORK/bench/bench.json" "$OUT_DIR/" 2>/dev/null
must "bench --variants ($SIZE MiB; every result right)" $rc

# --- 4. ncu on histo_fastest and fast_popc ---------------------------------------------------
# 9.9 against the one-copy design whose shared atomics have bank conflicts.
BEST=fast_popc
step "ncu on histo_fastest and $BEST (uniform, 256 MiB, one launch each)"
if [ -n "$NCU" ]; then
  : >"$OUT_DIR/ncu.txt"
  for k in histo_fastest "$BEST"; do
    # --log-file: ncu's report alone (the bench's own table goes to the null device).
    timeout "$(limit 80 5)" "$NCU" --log-file "$WORK/ncu-$k.txt" --kernel-name "$k" --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
      --section Occupancy --section WarpStateStats --section LaunchStats \
      --metrics smsp__inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum \
      "$HERE/ch09" bench --variants --size-mib 256 --input uniform --reps 1 --warmup 0 \
      --budget-ms 1 --skip cub --out "$WORK/ncu-bench" >/dev/null 2>"$WORK/ncu-$k.err"
    rc=$?
    {
      echo "##### ncu: $k (exit $rc)"
      head -c 4000000 "$WORK/ncu-$k.txt" 2>/dev/null
      [ "$rc" -ne 0 ] && tail -n 5 "$WORK/ncu-$k.err"
    } >>"$OUT_DIR/ncu.txt"
    result "ncu $k: exit $rc"
  done
  grep -E '#####|histo_fastest|fast_|shared_atom|op_atom|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Issue Slots Busy|Warp Cycles Per Issued|Stall|L1/TEX Hit|Registers Per' \
    "$OUT_DIR/ncu.txt" | head -n 80
else
  result "SKIPPED ncu (not found)"
fi

# --- summary ---------------------------------------------------------------------------
step "summary ($(elapsed) s)"
printf '%s\n' "${SUMMARY[@]}"
rm -rf "$WORK"
ls -la "$OUT_DIR"
exit $FAILED
