#!/usr/bin/env bash
# gpu-ch05.sh: chapter 5 on a real GPU, in one call, from the folder that
# bench/prepare-gpu.sh built (it ships chapter 5's binaries too; no Rust
# needed here).
#
#   bash .gpu/gpu-ch05.sh [OUT_DIR]        (OUT_DIR default: $OUT, else .gpu/out-ch05)
#
# In order, each step time-limited, the whole under 8 minutes:
#   1. the student checks with the stubs: every exercise must fail ("not implemented"),
#      each in its own process;
#   2. the same checks on the reference solutions: must pass;
#   3. the progression on the GPU (reference kernels): every row must be correct, but
#      5.5's in-place sum, which may or may not show its block-order dependence here;
#   4. the bench: 5.5's blocks-per-SM sweep and 5.6's four histogram kernels in MB/s;
#      bench.json in OUT.
# Logs of every step are in OUT; a summary ends the output. Exit status 0 when every
# "must" above held.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# COURSE_LANES_DIR, OUT_DIR ($1, else $OUT, else HERE/out-ch05), COURSE_GIT_COMMIT,
# PATH and RUST_BACKTRACE, as every GPU script has them (crates/chapter/gpu-env.sh).
# shellcheck source=/dev/null
. "$HERE/gpu-env.sh" out-ch05 "$@"
START=$(date +%s)
SUMMARY=()
FAILED=0

elapsed() { echo $(($(date +%s) - START)); }
step() { echo; echo "=== [$(elapsed)s] $*"; }
result() { SUMMARY+=("$1"); echo ">>> $1"; }
must() { # must NAME STATUS: records a check that has to hold
  if [ "$2" -eq 0 ]; then result "ok      $1"; else result "FAILED  $1 (exit $2)"; FAILED=1; fi
}

step "versions (commit $(cat "$HERE/COMMIT" 2>/dev/null || echo unknown), output in $OUT_DIR)"
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv 2>/dev/null ||
  echo "nvidia-smi failed"

step "ch05 student checks on the stubs (each must fail, not implemented)"
COURSE_DEVICE=gpu timeout 120 "$HERE/ch05-exercises" >"$OUT_DIR/ch05-stubs.log" 2>&1
rc=$?
fails=$(grep -c "not implemented" "$OUT_DIR/ch05-stubs.log" || true)
echo "exit $rc, $fails 'not implemented' lines"
[ "$rc" -ne 0 ] && [ "$fails" -ge 6 ]
must "ch05 stubs fail as not implemented" $?

step "ch05 student checks on the reference solutions (must pass)"
COURSE_KERNELS=reference COURSE_DEVICE=gpu timeout 180 "$HERE/ch05-exercises" >"$OUT_DIR/ch05-reference.log" 2>&1
rc=$?
tail -n 3 "$OUT_DIR/ch05-reference.log"
must "ch05 reference checks on the GPU" $rc

step "ch05 progression on the GPU"
timeout 120 "$HERE/ch05" --device gpu --n 16777216 >"$OUT_DIR/ch05-progression.txt" 2>&1
rc=$?
cat "$OUT_DIR/ch05-progression.txt"
if [ "$rc" -eq 0 ]; then
  # The table's rows (a launch column, <<<...>>>), not the header's "5.3 grid ..." line.
  ! grep -E "^5\.[0-9] .*<<<" "$OUT_DIR/ch05-progression.txt" | grep -v smooth_in_place | grep -vq " correct "
  rc=$?
fi
must "ch05 progression rows correct on the GPU" $rc

step "ch05 bench"
left=$((470 - $(elapsed)))
[ "$left" -lt 60 ] && left=60
timeout "$left" "$HERE/ch05" bench --out "$OUT_DIR" 2>"$OUT_DIR/ch05-bench.log" | tee "$OUT_DIR/ch05-bench.txt"
rc=${PIPESTATUS[0]}
must "ch05 bench (every result right)" $rc

echo
echo "=== summary ($(elapsed)s)"
printf '%s\n' "${SUMMARY[@]}"
exit $FAILED
