#!/usr/bin/env bash
# Builds and runs probe2.cu, and shows what nvcc makes of probe.cu's one atomic per
# element on one address (SASS): from the repository root,
#   bash notes/ch10-book-2026-11-28/run2.sh > probe2.txt 2>&1
set -euo pipefail
dir=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o /tmp/ch10-probe2 "$dir/probe2.cu"
date -u +"date: %Y-%m-%dT%H:%M:%SZ"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -1
/tmp/ch10-probe2
echo "SASS of sum_atomic (probe2.cu), its atomic and warp instructions:"
cuobjdump -sass /tmp/ch10-probe2 | awk '/Function : / {f = /sum_atomic/} f {print}' \
    | grep -E "Function|ATOM|RED|SHFL|VOTE|POPC|MATCH|FLO|EXIT" || true
echo "PTX of sum_atomic (nvcc -ptx): its atomic and warp instructions:"
nvcc -O3 -arch=sm_90 -ptx -o /tmp/ch10-probe2.ptx "$dir/probe2.cu"
awk '/\.entry .*sum_atomic/ {f = 1} f {print} f && /^}/ {f = 0}' /tmp/ch10-probe2.ptx \
    | grep -E "entry|atom|red\.|shfl|vote|redux|match|activemask" || true
