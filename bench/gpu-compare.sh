#!/usr/bin/env bash
# gpu-compare.sh: two builds of the course's bench side by side on one GPU, to show that a
# change to the bench changed no table and no JSON: each build's chapter binaries (from
# `bash bench/prepare-gpu.sh --bench-only DIR`) run the same benches, old, new, old again,
# and bench/compare_reports.py compares the JSON of old and new (the same header fields,
# rows, labels and verdicts; each time within twice the old build's own run-to-run spread,
# at least 10 %) and the tables with their numbers masked.
#
#   bash bench/gpu-compare.sh OLD_DIR NEW_DIR [RESULTS]    (from the repository root)
#
# Chapter 9: every step, CPU, CUB and torch.bincount on 64 MiB inputs (both element types,
# the four inputs) and a size sweep of 9.9 at 4 and 16 MiB; chapter 5: its bench at 128 MiB.
# CUB is compiled once here and given to both builds. The order is old, new, old, new, and
# each new run is compared with the old run before it. Under 8 minutes (each run has its
# limit), about 4 expected. Exit status 0 when every comparison says SAME.
set -u
OLD=$(cd "${1:?OLD_DIR}" && pwd)
NEW=$(cd "${2:?NEW_DIR}" && pwd)
RESULTS=${3:-${OUT:-gpu-compare}}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
# Every run's files go to a scratch folder; RESULTS gets the verdicts, the GPU's name and
# one archive of everything (a few files: a GPU session brings back only so many).
OUT_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gpu-compare.XXXXXX")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for d in /usr/local/cuda/bin /usr/local/cuda-*/bin /opt/cuda/bin; do
  [ -d "$d" ] && PATH=$PATH:$d
done
# The sandbox's modules the binaries read (the same kernels in both builds): the new
# folder's.
export PATH RUST_BACKTRACE=0 COURSE_LANES_DIR="$NEW/lanes"
START=$(date +%s)
FAILED=0
step() { echo; echo "=== [$(($(date +%s) - START))s] $*"; }

step "versions (old $(cat "$OLD/COMMIT" 2>/dev/null), new $(cat "$NEW/COMMIT" 2>/dev/null))"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee "$OUT_DIR/gpu.txt"
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
CUB=()
if command -v nvcc >/dev/null && nvcc -O3 -arch="sm_${cap:-90}" -o "$OUT_DIR/cub_histogram" "$NEW/cub_histogram.cu"; then
  CUB=(--cub "$OUT_DIR/cub_histogram")
else
  echo "CUB not compiled: both builds run without it"
  CUB=(--skip cub)
fi

# run BUILD NAME TIMEOUT CHAPTER ARGS...: one bench of one build, its table in NAME.table.
run() {
  local build=$1 name=$2 limit=$3 ch=$4
  shift 4
  step "$name"
  commit=$(head -n 1 "$build/COMMIT" 2>/dev/null || echo unknown)
  COURSE_GIT_COMMIT=$commit CH09_GIT_COMMIT=$commit \
    timeout "$limit" "$build/$ch" bench "$@" --out "$OUT_DIR/$name" \
    >"$OUT_DIR/$name.table" 2>"$OUT_DIR/$name.log"
  echo "exit $?"
  tail -n 3 "$OUT_DIR/$name.table"
}

# compare NAME FILE: old-a against new, then old-b against new-b, each with the other old
# run's spread (the order old, new, old, new: a drift of the machine shows in both), and the
# masked tables.
compare() {
  local name=$1 file=$2
  step "compare $name"
  python3 "$HERE/compare_reports.py" "$OUT_DIR/$name-old-a/$file" "$OUT_DIR/$name-new/$file" \
    --again "$OUT_DIR/$name-old-b/$file" | tee "$OUT_DIR/$name-compare.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || FAILED=1
  python3 "$HERE/compare_reports.py" "$OUT_DIR/$name-old-b/$file" "$OUT_DIR/$name-new-b/$file" \
    --again "$OUT_DIR/$name-old-a/$file" | tee "$OUT_DIR/$name-compare-b.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || FAILED=1
  mask() { sed -E 's/commit [0-9a-f-]+/commit #/; s/-?[0-9][0-9.]*/#/g; s/ +/ /g' "$1"; }
  if diff <(mask "$OUT_DIR/$name-old-a.table") <(mask "$OUT_DIR/$name-new.table") >"$OUT_DIR/$name-table.diff"; then
    echo "tables: the same but for their numbers"
  else
    echo "tables differ beyond their numbers (best-kernel names may swap within the spread):"
    head -n 20 "$OUT_DIR/$name-table.diff"
  fi
}

ARGS09=(--size-mib 64 --budget-ms 400 "${CUB[@]}")
ARGS_SIZES=(--sizes 4,16 --step 9.9 --skip cpu,torch,cub --budget-ms 300)
ARGS05=(--size-mib 128)
for who in old-a:"$OLD" new:"$NEW" old-b:"$OLD" new-b:"$NEW"; do
  tag=${who%%:*}
  build=${who#*:}
  run "$build" "ch09-$tag" 75 ch09 "${ARGS09[@]}"
  run "$build" "ch09-sizes-$tag" 30 ch09 "${ARGS_SIZES[@]}"
  run "$build" "ch05-$tag" 30 ch05 "${ARGS05[@]}"
done
compare ch09 bench.json
compare ch09-sizes sizes.json
compare ch05 bench.json
tar -C "$OUT_DIR" -czf "$RESULTS/results.tgz" .
cp "$OUT_DIR"/*-compare*.txt "$OUT_DIR/gpu.txt" "$RESULTS/"
step "done: $([ "$FAILED" -eq 0 ] && echo SAME || echo DIFFERENT), verdicts in $RESULTS, every file in $RESULTS/results.tgz"
exit "$FAILED"
