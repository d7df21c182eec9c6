#!/usr/bin/env bash
# gpu-atoms-rate.sh: is 9.9 at 16 MiB bound by its shared atomics? (the performance
# issue's second point). On the GPU machine, from the workspace root, after
# prepare-gpu.sh made .gpu/:
#
#   bash bench/gpu-atoms-rate.sh [OUT_DIR]
#
#   1. versions;
#   2. atoms_rate_probe.cu: the read kernel, the shared atomics alone and a CUDA C
#      version of 9.9's design at 1 to 64 MiB, several grids (atoms-rate.txt);
#   3. the course's bench at 1, 4, 16 and 64 MiB, u8, uniform: 9.9 against the read
#      kernel and CUB of the same run (bench-sizes.txt, sizes/);
#   4. Nsight Compute on the probe's atomics alone and its fused kernel at 16 MiB: which
#      unit is the limit (ncu-atoms-rate.txt).
set -u
ROOT=$(pwd)
HERE="$ROOT/.gpu"
# shellcheck source=/dev/null
. "$HERE/gpu-env.sh" atoms-rate "$@"
{
  date -u +"date %Y-%m-%d %H:%M UTC"
  echo "commit $(cat "$HERE/COMMIT" 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  nvcc --version | tail -n 1
  ncu --version | tail -n 1
} 2>&1 | tee "$OUT_DIR/versions.txt"
nvcc -O3 -arch=sm_90 -o /tmp/atoms_rate_probe "$ROOT/bench/atoms_rate_probe.cu" || exit 1
/tmp/atoms_rate_probe 2>&1 | tee "$OUT_DIR/atoms-rate.txt"
"$HERE/ch09" bench --sizes 1,4,16,64 --dtype u8 --input uniform --skip cpu,torch \
  --out "$OUT_DIR/sizes" 2>&1 | tail -n 25 | tee "$OUT_DIR/bench-sizes.txt"
ncu --kernel-name regex:"atoms_kernel|fused_kernel" \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
  --section Occupancy --section ComputeWorkloadAnalysis \
  /tmp/atoms_rate_probe once > "$OUT_DIR/ncu-atoms-rate.txt" 2>&1
echo "ncu: exit $?"
