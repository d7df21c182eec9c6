#!/usr/bin/env bash
# gpu-arch-check.sh: the course from sm_70 PTX against sm_90 PTX on one GPU, and the
# emulator against Nsight Compute at launch shapes drawn from a seed, in one call, from the
# folder that bench/prepare-gpu.sh built (no Rust needed there).
#
#   bash .gpu/gpu-arch-check.sh [OUT_DIR] [SEED]    (OUT_DIR default: $OUT, else .gpu/arch)
#
# The binaries embed PTX built for sm_70 (the course's floor); COURSE_PTX_DIR=.gpu/ptx-sm_90
# makes them load the same kernels built for sm_90 instead. In order, about 9 minutes on an
# H100:
#   1. versions;
#   2. for each PTX (sm_70, sm_90): cuda_smoke, chapter 9's student checks with the stubs
#      (every one must fail as not implemented), the same with the reference kernels (must
#      pass), the course self-test, chapter 5's reference checks: checks-*.log;
#   3. the bench at 1 GiB, 9.9 on the four byte inputs and 9.14's kernels on the four u32
#      inputs from sm_70 PTX with CUB, then on uniform and text input from sm_90 PTX, then
#      from sm_70 PTX again (the run-to-run spread): bench-*/;
#   4. fidelity.py --ncu-only at 3 shapes per chapter drawn from SEED (default 40): the ncu
#      side only, paired later with the emulator's side anywhere (`--ncu-logs`): fidelity/;
#   5. ncu's source view (per SASS instruction) of 9.5's static kernel and of 9.9 at the
#      chapter 9 shapes: source-*.csv.
# Everything goes into OUT_DIR/arch.tgz; a summary is printed last.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=/dev/null
. "$HERE/gpu-env.sh" arch "${1:-}"
SEED=${2:-40}
RES=$(mktemp -d)/arch
mkdir -p "$RES"
START=$(date +%s)
say() { echo "=== [$(($(date +%s) - START))s] $*"; }
SUMMARY=()
must() { if [ "$2" -eq 0 ]; then SUMMARY+=("ok      $1"); else SUMMARY+=("FAILED  $1 (exit $2)"); fi; }

say "versions"
{
  date -u +"date %Y-%m-%d %H:%M UTC"
  echo "commit $(cat "$HERE/COMMIT" 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  nvcc --version | tail -n 1
  ncu --version | tail -n 1
  grep -m1 -h '^\.target' "$HERE/ptx/solutions.ptx" "$HERE/ptx-sm_90/solutions.ptx"
} 2>&1 | tee "$RES/versions.txt"
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
(nvcc -O3 "-arch=sm_${CC:-90}" -o "$RES/cub_histogram" "$HERE/cub_histogram.cu" >"$RES/nvcc.log" 2>&1) &
NVCC_PID=$!

for arch in sm_70 sm_90; do
  if [ "$arch" = sm_90 ]; then export COURSE_PTX_DIR="$HERE/ptx-sm_90"; else unset COURSE_PTX_DIR; fi
  dir="$HERE/ptx"; [ "$arch" = sm_90 ] && dir="$HERE/ptx-sm_90"
  say "checks from $arch PTX"
  timeout 90 "$HERE/cuda_smoke" "$dir/api-probe.ptx" >"$RES/smoke-$arch.log" 2>&1
  must "cuda_smoke ($arch)" $?
  COURSE_DEVICE=gpu timeout 150 "$HERE/ch09-exercises" --test-threads 8 >"$RES/checks-stubs-$arch.log" 2>&1
  rc=$?
  failed=$(grep -c '^test .* FAILED$' "$RES/checks-stubs-$arch.log")
  todo=$(grep -c ': not implemented - ' "$RES/checks-stubs-$arch.log")
  stubs=$("$HERE/ch09-exercises" --list 2>/dev/null | grep -c ': test$')
  [ "$rc" -ne 0 ] && [ "$stubs" -gt 0 ] && [ "$failed" -eq "$stubs" ] && [ "$todo" -eq "$stubs" ]
  must "ch09 stubs: $failed of $stubs fail, $todo as not implemented ($arch)" $?
  COURSE_KERNELS=reference COURSE_DEVICE=gpu timeout 150 "$HERE/ch09-exercises" --test-threads 8 \
    >"$RES/checks-reference-$arch.log" 2>&1
  must "ch09 reference checks: $(grep -m1 '^test result' "$RES/checks-reference-$arch.log") ($arch)" $?
  COURSE_DEVICE=gpu timeout 150 "$HERE/course-solutions-pass" >"$RES/self-test-$arch.log" 2>&1
  must "course self-test ($arch)" $?
  COURSE_KERNELS=reference COURSE_DEVICE=gpu timeout 120 "$HERE/ch05-exercises" --test-threads 8 \
    >"$RES/checks-ch05-$arch.log" 2>&1
  must "ch05 reference checks ($arch)" $?
done
unset COURSE_PTX_DIR
wait "$NVCC_PID"
CUB="$RES/cub_histogram"

bench() { # bench NAME [--cub CUB]: 9.9 on bytes and 9.14 on u32, 1 GiB, four inputs
  local name=$1
  shift
  for dt in u8 u32; do
    st=9.9; [ "$dt" = u32 ] && st=9.14
    timeout 200 "$HERE/ch09" bench --dtype "$dt" --step "$st" --skip cpu,torch "$@" --budget-ms 1000 \
      --out "$RES/bench-$name-$dt" >"$RES/bench-$name-$dt.txt" 2>"$RES/bench-$name-$dt.log"
    echo "bench $name $dt exit $?"
    grep -E "histo_fastest |u32_vectors|cub" "$RES/bench-$name-$dt.txt"
  done
}
say "the bench from sm_70 PTX, with CUB"
[ -x "$CUB" ] && bench sm_70-a --cub "$CUB" || bench sm_70-a --skip cub
say "the bench from sm_90 PTX"
COURSE_PTX_DIR="$HERE/ptx-sm_90" bench sm_90 --skip cpu,torch,cub --input uniform --input text
say "the bench from sm_70 PTX again"
bench sm_70-b --skip cpu,torch,cub --input uniform --input text

say "fidelity: the ncu side at 3 shapes per chapter from seed $SEED"
mkdir -p "$RES/fidelity"
cp "$RES/versions.txt" "$RES/fidelity/"
args=(--bin "ch09=$HERE/ch09" --bin "ch05=$HERE/ch05" --seed "$SEED" --shapes 3 --ncu-only
  --out "$RES/fidelity" --timeout 150)
[ -f "$HERE/bench-text.md" ] && args+=(--text "$HERE/bench-text.md")
timeout 330 python3 "$HERE/fidelity.py" "${args[@]}" --ncu "$(command -v ncu)" >"$RES/fidelity.log" 2>&1
must "fidelity --ncu-only (seed $SEED)" $?
tail -n 8 "$RES/fidelity.log"

say "ncu's source view of 9.5's static kernel and 9.9 at the chapter 9 shapes"
python3 - "$RES/fidelity/shapes.json" >"$RES/source-shapes.txt" <<'EOF'
import json, shlex, sys
for s in json.load(open(sys.argv[1])):
    if s["chapter"] == "ch09":
        inp = s["input"] if s["input"] != "text" else "uniform"
        print(s["tag"], s["n"], inp, shlex.join(s["options"]))
EOF
while read -r tag n input opts; do
  # shellcheck disable=SC2086
  timeout 90 ncu --clock-control none --section SourceCounters --kernel-name regex:"^(histo_private_shared|histo_fastest)\$" \
    --page source --csv --print-source sass "$HERE/ch09" --device gpu --step 9.5 --step 9.9 --n "$n" --input "$input" $opts \
    >"$RES/source-$tag.csv" 2>&1
  echo "source $tag exit $?"
done <"$RES/source-shapes.txt"

tar -C "$(dirname "$RES")" -czf "$OUT_DIR/arch.tgz" arch
say "summary"
printf '%s\n' "${SUMMARY[@]}"
