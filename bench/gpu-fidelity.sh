#!/usr/bin/env bash
# gpu-fidelity.sh: the emulator's counters against Nsight Compute, on the GPU machine, from
# the folder bench/prepare-gpu.sh built (no Rust needed there).
#
#   bash .gpu/gpu-fidelity.sh [OUT_DIR]        (OUT_DIR default: $OUT, else .gpu/fidelity)
#
#   1. versions: the GPU, driver, CUDA and ncu, and the date (the table's provenance);
#   2. the atomics probe (atomics_probe.cu, compiled here with nvcc): one warp's shared
#      atomic, pattern by pattern, under ncu, beside what the candidate models predict
#      (probe-launches.csv, probe-ncu.csv), its SASS (probe-sass.txt), and the timing of
#      global RED against ATOM (probe-timing.txt);
#   3. fidelity.py: every reference kernel of chapters 9 and 5 on uniform, one-value and
#      text input, at n = 262144 and n = 200003 (no block divides it), on the emulator and
#      under ncu, paired launch by launch: fidelity.md and fidelity.csv; and the SASS of
#      the reference kernels (solutions-sass.txt), where the compiled code explains a row;
#   4. the same at 3 launch shapes per chapter drawn from a seed (FIDELITY_SEED, default
#      the time: n, input, block, input seed, and for chapter 9 bins and coarsening), into
#      OUT_DIR/shapes; the seed is printed, so a run can be repeated.
# Exit status: fidelity.py's (0 when every difference is an expected one).
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# COURSE_LANES_DIR, OUT_DIR ($1, else $OUT, else HERE/fidelity), COURSE_GIT_COMMIT,
# PATH and RUST_BACKTRACE, as every GPU script has them (crates/chapter/gpu-env.sh).
# shellcheck source=/dev/null
. "$HERE/gpu-env.sh" fidelity "$@"
START=$(date +%s)
say() { echo "=== [$(($(date +%s) - START))s] $*"; }

say "versions"
{
  date -u +"date %Y-%m-%d %H:%M UTC"
  echo "commit $(cat "$HERE/COMMIT" 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  nvcc --version | tail -n 1
  ncu --version | tail -n 1
} | tee "$OUT_DIR/versions.txt"

say "atomics probe"
BUILD=$(mktemp -d)
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
if nvcc -O3 "-arch=sm_${CC:-90}" -o "$BUILD/atomics_probe" "$HERE/atomics_probe.cu" >"$OUT_DIR/probe-nvcc.log" 2>&1; then
  cuobjdump -sass "$BUILD/atomics_probe" | grep -E 'Function|ATOMS|LDS|RED|ATOM\.|BRA' >"$OUT_DIR/probe-sass.txt"
  timeout 180 ncu --clock-control none --csv --print-units base --log-file "$OUT_DIR/probe-ncu.csv" \
    --kernel-name regex:^probe_ \
    --metrics smsp__inst_executed_op_shared_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_st.sum \
    "$BUILD/atomics_probe" probes >"$OUT_DIR/probe-launches.csv" 2>"$OUT_DIR/probe-ncu.err"
  echo "ncu exit $?"
  timeout 120 "$BUILD/atomics_probe" timing 2>&1 | tee "$OUT_DIR/probe-timing.txt"
else
  tail -n 20 "$OUT_DIR/probe-nvcc.log"
fi

say "the reference kernels' SASS (ptxas, cuobjdump): what the table's compiled-code rows point at"
if ptxas "-arch=sm_${CC:-90}" -o "$BUILD/solutions.cubin" "$HERE/ptx/solutions.ptx" 2>"$OUT_DIR/ptxas.log"; then
  cuobjdump -sass "$BUILD/solutions.cubin" >"$OUT_DIR/solutions-sass.txt"
  grep -c 'Function' "$OUT_DIR/solutions-sass.txt" | sed 's/^/functions: /'
else
  tail -n 5 "$OUT_DIR/ptxas.log"
fi

say "fidelity: chapters 9 and 5, three inputs, two sizes"
args=(--bin "ch09=$HERE/ch09" --bin "ch05=$HERE/ch05" --out "$OUT_DIR" --timeout 200)
[ -f "$HERE/bench-text.md" ] && args+=(--text "$HERE/bench-text.md")
python3 "$HERE/fidelity.py" "${args[@]}" --ncu "$(command -v ncu)"
rc=$?
head -n 60 "$OUT_DIR/fidelity.md"

# The defaults are one shape (256 bins, 256-thread blocks); bounds fitted there can be
# wrong elsewhere (notes/fidelity-shapes-h100-2026-11-25/: 9.5's and 9.8's bank conflicts
# at 512-thread blocks). One more run at other shapes keeps them honest.
SEED=${FIDELITY_SEED:-$(date +%s)}
say "fidelity at 3 shapes per chapter drawn from seed $SEED (FIDELITY_SEED)"
mkdir -p "$OUT_DIR/shapes" && cp "$OUT_DIR/versions.txt" "$OUT_DIR/shapes/"
shape_args=(--bin "ch09=$HERE/ch09" --bin "ch05=$HERE/ch05" --out "$OUT_DIR/shapes" --timeout 200
  --seed "$SEED" --shapes 3)
[ -f "$HERE/bench-text.md" ] && shape_args+=(--text "$HERE/bench-text.md")
python3 "$HERE/fidelity.py" "${shape_args[@]}" --ncu "$(command -v ncu)"
shapes=$?
head -n 40 "$OUT_DIR/shapes/fidelity.md"
[ "$rc" -eq 0 ] && rc=$shapes
say "done (exit $rc)"
exit $rc
