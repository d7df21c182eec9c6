#!/usr/bin/env bash
# gpu-ch10.sh: chapter 10's bench on a real GPU, in one call, from the folder that
# bench/prepare-gpu.sh built (`--chapter ch10`; no Rust needed here).
#
#   bash .gpu/gpu-ch10.sh [OUT_DIR]        (OUT_DIR default: $OUT, else .gpu/out-ch10)
#   bash .gpu/gpu-session.sh --chapter ch10 [OUT_DIR]      (the same)
#
# Every reference kernel of the chapter (10.2 to 10.9), the read kernel and the device copy,
# cub::DeviceReduce::Sum (compiled here with nvcc for this GPU), torch.sum and the CPU, on
# 1 GiB of u32 and 1 GiB of f32, side by side in one run: GB/s and % of the read
# bandwidth; bench.csv and bench.json in OUT_DIR, the targets (10.9 at >= 97 % of the read
# bandwidth and ahead of CUB) at the end. About 3 minutes on an H100. Exit status 0 when
# every result was right.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=/dev/null
. "$HERE/gpu-env.sh" out-ch10 "$@"
START=$(date +%s)
echo "=== versions (commit $(cat "$HERE/COMMIT" 2>/dev/null || echo unknown), output in $OUT_DIR)"
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv 2>&1 | tee "$OUT_DIR/gpu.txt"
command -v nvcc >/dev/null && nvcc --version | tail -n 1
python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)' 2>&1 | tail -n 1
echo
echo "=== [$(($(date +%s) - START))s] ch10 bench, 1 GiB of u32 and of f32"
timeout 420 "$HERE/ch10" bench --out "$OUT_DIR/bench" "${BENCH_ARGS[@]+"${BENCH_ARGS[@]}"}" \
  >"$OUT_DIR/bench.table" 2>"$OUT_DIR/bench.log"
rc=$?
cat "$OUT_DIR/bench.table"
tail -n 3 "$OUT_DIR/bench.log"
echo
echo "=== [$(($(date +%s) - START))s] done: exit $rc, results in $OUT_DIR"
exit "$rc"
