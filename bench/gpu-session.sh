#!/usr/bin/env bash
# gpu-session.sh: chapter 9 on a real GPU, in one call, from the folder that
# bench/prepare-gpu.sh built (no Rust needed here).
#
#   bash .gpu/gpu-session.sh [--chapter CH] [OUT_DIR]   (OUT_DIR default: $OUT, else .gpu/out)
#
# --chapter ch09 (the default) is this session; another chapter's is its own script beside
# this one, gpu-CH.sh (chapter 5's: gpu-ch05.sh), run with the same OUT_DIR.
#
# In order, each step time-limited, the whole under 8 minutes:
#   1. versions: nvidia-smi, nvcc, compute-sanitizer, PyTorch; CUB's program starts
#      compiling in the background (nvcc, for this GPU's sm_XY);
#   2. cuda_smoke: the backend against the emulator, kernel by kernel;
#   3. the checks on the GPU: ch09's unit tests; the student checks with the stubs
#      (every exercise must fail, as "not implemented", each in its own process); the same
#      checks on the reference solutions (must pass); the course self-test (must pass);
#   4. compute-sanitizer memcheck, racecheck and synccheck over the reference kernels (the
#      progression on the GPU, small n): each tool's summary line (must be clean);
#   5. racecheck catching 9.5's kernel with its barriers removed (demo-racecheck);
#   6. the bench: every step on 1 GiB inputs (smaller if time is short) against the
#      read bandwidth, CUB, torch.bincount and the CPU; bench.csv and bench.json in OUT.
# Logs of every step are in OUT; a summary ends the output. Exit status 0 when every
# "must" above held.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ "${1:-}" = --chapter ]; then
  CHAPTER=${2:?--chapter needs a chapter, ch05 or ch09}
  shift 2
  if [ "$CHAPTER" != ch09 ]; then
    [ -f "$HERE/gpu-$CHAPTER.sh" ] || { echo "gpu-session: no session for $CHAPTER ($HERE/gpu-$CHAPTER.sh)" >&2; exit 2; }
    exec bash "$HERE/gpu-$CHAPTER.sh" "$@"
  fi
fi
# COURSE_LANES_DIR, OUT_DIR ($1, else $OUT, else HERE/out), COURSE_GIT_COMMIT,
# PATH and RUST_BACKTRACE, as every GPU script has them (crates/chapter/gpu-env.sh).
# shellcheck source=/dev/null
. "$HERE/gpu-env.sh" out "$@"
START=$(date +%s)
LIMIT_S=470 # the session's own limit, a little under 8 minutes
SUMMARY=()
FAILED=0

elapsed() { echo $(($(date +%s) - START)); }
# limit MAX: a step's time limit, MAX seconds unless that would leave the bench (last)
# less than RESERVE seconds of the session's LIMIT_S; at least 10.
RESERVE=100
limit() {
  local left=$((LIMIT_S - $(elapsed) - RESERVE))
  [ "$left" -lt 10 ] && left=10
  [ "$1" -lt "$left" ] && echo "$1" || echo "$left"
}
step() { echo; echo "=== [$(elapsed)s] $*"; }
result() { SUMMARY+=("$1"); echo ">>> $1"; }
must() { # must NAME STATUS: records a check that has to hold
  if [ "$2" -eq 0 ]; then result "ok      $1"; else result "FAILED  $1 (exit $2)"; FAILED=1; fi
}

# --- 1. versions ---------------------------------------------------------------------
step "versions (commit $COURSE_GIT_COMMIT, output in $OUT_DIR)"
nvidia-smi || echo "nvidia-smi failed"
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv 2>/dev/null
command -v nvcc >/dev/null && nvcc --version | tail -n 2 || echo "nvcc: not found"
SANITIZER=$(command -v compute-sanitizer || true)
[ -n "$SANITIZER" ] && "$SANITIZER" --version | tail -n 1 || echo "compute-sanitizer: not found"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>/dev/null ||
  echo "PyTorch: not importable with python3"
uname -srm
grep -m1 'model name' /proc/cpuinfo || true

CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
ARCH=sm_${CC:-90}
CUB=""
NVCC_PID=""
if command -v nvcc >/dev/null; then
  echo "compiling cub_histogram.cu for $ARCH in the background"
  BUILD=$(mktemp -d)
  (nvcc -O3 "-arch=$ARCH" -o "$BUILD/cub_histogram" "$HERE/cub_histogram.cu" >"$OUT_DIR/nvcc.log" 2>&1) &
  NVCC_PID=$!
fi

# --- 2. backend smoke ------------------------------------------------------------------
step "cuda_smoke (backend vs emulator)"
timeout "$(limit 90)" "$HERE/cuda_smoke" "$HERE/ptx/api-probe.ptx" >"$OUT_DIR/cuda_smoke.log" 2>&1
rc=$?
tail -n 15 "$OUT_DIR/cuda_smoke.log"
must "cuda_smoke" $rc

# --- 3. checks on the GPU --------------------------------------------------------------
step "ch09 unit tests"
COURSE_DEVICE=gpu timeout "$(limit 120)" "$HERE/ch09-unit" >"$OUT_DIR/ch09-unit.log" 2>&1
rc=$?
grep -E '^test result|FAILED|panicked' "$OUT_DIR/ch09-unit.log" | head -n 20
must "ch09 unit tests" $rc

step "student checks with the stubs (every one must fail as not implemented)"
COURSE_DEVICE=gpu timeout "$(limit 180)" "$HERE/ch09-exercises" --test-threads 8 >"$OUT_DIR/checks-student.log" 2>&1
rc=$?
grep -E '^note|^test result' "$OUT_DIR/checks-student.log"
failed=$(grep -c '^test .* FAILED$' "$OUT_DIR/checks-student.log")
todo=$(grep -c ': not implemented - ' "$OUT_DIR/checks-student.log")
gpu=$(grep -c 'on the GPU: ' "$OUT_DIR/checks-student.log")
echo "$failed tests failed; $todo say \"not implemented\"; $gpu carry a GPU finding besides the emulator's report"
grep -m 3 'on the GPU: ' "$OUT_DIR/checks-student.log"
stubs=$("$HERE/ch09-exercises" --list 2>/dev/null | grep -c ': test$')
[ "$rc" -ne 0 ] && [ "$stubs" -gt 0 ] && [ "$failed" -eq "$stubs" ] && [ "$todo" -eq "$stubs" ]
must "student checks: all $stubs stubs fail as not implemented" $?

step "reference checks on the GPU (must pass)"
COURSE_KERNELS=reference COURSE_DEVICE=gpu timeout "$(limit 180)" "$HERE/ch09-exercises" --test-threads 8 >"$OUT_DIR/checks-reference.log" 2>&1
rc=$?
grep -E '^note|^test result' "$OUT_DIR/checks-reference.log"
grep -A 12 '^---- ' "$OUT_DIR/checks-reference.log" | head -n 60
must "reference checks on the GPU" $rc

step "course self-test on the GPU (solutions on the GPU, stubs on the emulator)"
COURSE_DEVICE=gpu timeout "$(limit 180)" "$HERE/course-solutions-pass" >"$OUT_DIR/self-test.log" 2>&1
rc=$?
grep -E '^note|^test |^test result' "$OUT_DIR/self-test.log"
grep -A 20 '^---- ' "$OUT_DIR/self-test.log" | head -n 40
must "course self-test" $rc

# --- 4. compute-sanitizer over the reference kernels ------------------------------------
if [ -n "$SANITIZER" ]; then
  for tool in memcheck racecheck synccheck; do
    step "compute-sanitizer --tool $tool over the progression on the GPU (n = 65536)"
    timeout "$(limit 150)" "$SANITIZER" --tool "$tool" --print-limit 20 \
      "$HERE/ch09" --device gpu --n 65536 >"$OUT_DIR/sanitizer-$tool.log" 2>&1
    rc=$?
    line=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$OUT_DIR/sanitizer-$tool.log" | tail -n 1)
    echo "${line:-no summary line (exit $rc); see sanitizer-$tool.log}"
    grep -c ' correct ' "$OUT_DIR/sanitizer-$tool.log" | sed 's/^/rows correct: /'
    clean=1
    case "$line" in
      *"SUMMARY: 0 errors"* | *"SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"*)
        [ "$rc" -eq 0 ] && clean=0 ;;
    esac
    must "$tool over the reference kernels: ${line:-no summary}" $clean
  done

  # --- 5. racecheck catches the missing barrier ----------------------------------------
  step "compute-sanitizer --tool racecheck on 9.5 without its barriers (demo-racecheck)"
  timeout "$(limit 120)" "$SANITIZER" --tool racecheck --print-limit 6 \
    "$HERE/ch09" demo-racecheck --n 65536 >"$OUT_DIR/racecheck-demo.log" 2>&1
  grep -v '^=========     ' "$OUT_DIR/racecheck-demo.log" | head -n 40
  line=$(grep -E 'RACECHECK SUMMARY' "$OUT_DIR/racecheck-demo.log" | tail -n 1)
  caught=1
  case "$line" in
    "" | *"SUMMARY: 0 hazards"*) ;;
    *) caught=0 ;;
  esac
  must "racecheck catches the barrier-less kernel: ${line:-no summary}" $caught
else
  result "SKIPPED compute-sanitizer (not found)"
  step "demo-racecheck without compute-sanitizer (the emulator's report only)"
  "$HERE/ch09" demo-racecheck --n 65536 2>&1 | tee "$OUT_DIR/racecheck-demo.log"
fi

# --- 6. the bench ----------------------------------------------------------------------
step "bench"
if [ -n "$NVCC_PID" ]; then
  wait "$NVCC_PID"
  if [ -x "$BUILD/cub_histogram" ]; then
    CUB="$BUILD/cub_histogram"
  else
    echo "nvcc failed; CUB is left out:"
    tail -n 5 "$OUT_DIR/nvcc.log"
  fi
fi
remain=$((LIMIT_S - $(elapsed)))
if [ "$remain" -ge 240 ]; then
  SIZE=1024 BUDGET=1000
elif [ "$remain" -ge 120 ]; then
  SIZE=256 BUDGET=500
else
  SIZE=64 BUDGET=300
fi
echo "$remain s left: inputs of $SIZE MiB, about $BUDGET ms per case"
args=(bench --size-mib "$SIZE" --budget-ms "$BUDGET" --out "$OUT_DIR" --torch "$HERE/torch_bincount.py")
[ -n "$CUB" ] && args+=(--cub "$CUB") || args+=(--skip cub)
[ -f "$HERE/bench-text.md" ] && args+=(--text "$HERE/bench-text.md")
timeout $((remain > 40 ? remain - 10 : 30)) "$HERE/ch09" "${args[@]}" \
  >"$OUT_DIR/bench-table.txt" 2>"$OUT_DIR/bench-progress.log"
rc=$?
cat "$OUT_DIR/bench-table.txt"
tail -n 3 "$OUT_DIR/bench-progress.log"
must "bench ($SIZE MiB; every result right; bench.csv and bench.json in $OUT_DIR)" $rc

# --- summary ---------------------------------------------------------------------------
step "summary ($(elapsed) s)"
printf '%s\n' "${SUMMARY[@]}"
ls -la "$OUT_DIR"
exit $FAILED
