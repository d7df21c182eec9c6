#!/usr/bin/env bash
# gpu-extensions.sh: the extension sweep (`ch09 bench --extensions`) on a real GPU, from the
# folder that bench/prepare-gpu.sh built (no Rust needed).
#
#   bash .gpu/gpu-extensions.sh [OUT_DIR]      (OUT_DIR default: $OUT, else .gpu/out-extensions)
#
# Runs `./ch09 bench --extensions --size-mib 256 --out OUT_DIR` (under 4 minutes): 9.15's
# histo_cas on the four u8 inputs (their first 16 MiB; CUB on them whole, when it can be
# built), 9.11 histo_rgb, 9.12 histo_weighted and 9.13 histo_joint (16 x 16 bins) on the
# uniform one, then 9.16's strategy
# sweep on uniform u32 values at 8, 16, 64, 256, 1024 and 4096 bins (9.10
# histo_registers where it applies, 9.14 histo_u32_shared and histo_u32_global), every
# result checked against the CPU's histogram. OUT_DIR gets extensions-table.txt,
# extensions-progress.log, bench.csv and bench.json. Exit status: the bench's (0 when
# every result was right).
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# COURSE_LANES_DIR, OUT_DIR ($1, else $OUT, else HERE/out-extensions), COURSE_GIT_COMMIT,
# PATH and RUST_BACKTRACE, as every GPU script has them (crates/chapter/gpu-env.sh).
# shellcheck source=/dev/null
. "$HERE/gpu-env.sh" out-extensions "$@"

echo "=== bench --extensions (commit $COURSE_GIT_COMMIT, output in $OUT_DIR)"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null ||
  echo "nvidia-smi failed"
# CUB is left out (its nvcc build alone takes a minute; --variants and the main bench
# measure it).
args=(bench --extensions --size-mib 256 --skip cub --out "$OUT_DIR")
[ -f "$HERE/bench-text.md" ] && args+=(--text "$HERE/bench-text.md")
timeout 230 "$HERE/ch09" "${args[@]}" \
  >"$OUT_DIR/extensions-table.txt" 2>"$OUT_DIR/extensions-progress.log"
rc=$?
cat "$OUT_DIR/extensions-table.txt"
tail -n 3 "$OUT_DIR/extensions-progress.log"
echo ">>> bench --extensions (256 MiB): exit $rc"
exit $rc
