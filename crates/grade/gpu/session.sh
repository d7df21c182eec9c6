#!/usr/bin/env bash
# The grader's GPU session (built by crates/grade/gpu/prepare-session.sh): run from the
# repository root on the GPU machine, no Rust needed: bash .gpu/grading/session.sh OUT_DIR
set -uo pipefail
G=.gpu/grading
OUT=${1:-gpu-grading-out}
mkdir -p "$OUT"
run() { # NAME SECONDS COMMAND...: its output into OUT/NAME.txt, its exit code and time logged
  local name=$1 limit=$2
  shift 2
  local t0=$SECONDS
  timeout "$limit" "$@" >"$OUT/$name.txt" 2>&1
  echo "$name: exit $? in $((SECONDS - t0)) s" | tee -a "$OUT/summary.txt"
}
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
cat "$G/COMMIT" >> "$OUT/gpu.txt"
# 1. A student's own solutions, every exercise, on the GPU (both judges, times).
run student-right 240 "$G/grade" --student "$G/prepared/right" --prepared --device gpu \
  --format table,json,markdown --out "$OUT/student-right"
# 2. The buggy answers the emulator fails: on the GPU they fail as on the emulator.
run buggy 120 "$G/grade" --student "$G/prepared/buggy" --prepared --device gpu \
  --exercise 5.1 --exercise 5.3 --exercise 9.7 --exercise 9.9 --exercise 9.10 \
  --format table,json --out "$OUT/buggy"
# 3. A class of three (right, racy, trapping) on a few exercises.
run class 180 "$G/grade" --class "$G/class" --prepared --device gpu \
  --exercise 5.1 --exercise 9.3 --exercise 9.4 --exercise 9.5 --exercise 9.9 \
  --format table,json,markdown --out "$OUT/class"
# 4. bench --kernels student: the right student's kernels beside the reference's, the read
#    kernel and CUB, at 16 MiB and 1 GiB; then the stubs at 16 MiB (kept off the GPU).
for size in 16 1024; do
  COURSE_PTX_DIR="$G/prepared/right" COURSE_LANES_KERNELS="$G/prepared/right/kernels.wasm" \
    COURSE_LANES_DIR="$G/prepared/right" \
    run "bench-student-$size" 180 "$G/ch09" bench --kernels student --size-mib "$size" \
    --dtype u8 --input uniform --skip cpu,torch --budget-ms 300 --out "$OUT/bench-student-$size"
done
COURSE_PTX_DIR="$G/prepared/stubs" COURSE_LANES_KERNELS="$G/prepared/stubs/kernels.wasm" \
  COURSE_LANES_DIR="$G/prepared/stubs" \
  run bench-stubs-16 120 "$G/ch09" bench --kernels student --size-mib 16 --dtype u8 \
  --input uniform --skip cpu,torch,cub --budget-ms 200 --out "$OUT/bench-stubs-16"
cat "$OUT/summary.txt"
