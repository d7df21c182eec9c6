#!/usr/bin/env bash
# Builds and runs probe3.cu (10.9's design against CUB), then times torch.sum on the same
# sizes when PyTorch is there: from the repository root,
#   bash notes/ch10-book-2026-11-28/run3.sh > probe3.txt 2>&1
set -euo pipefail
dir=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o /tmp/ch10-probe3 "$dir/probe3.cu"
date -u +"date: %Y-%m-%dT%H:%M:%SZ"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -1
/tmp/ch10-probe3
python3 - <<'PY' || echo "torch: not run"
import torch
n = 1 << 28
flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
for name, x in [("torch.sum int32", torch.randint(0, 256, (n,), dtype=torch.int32, device="cuda")),
                ("torch.sum f32", torch.rand(n, dtype=torch.float32, device="cuda"))]:
    ms = []
    for r in range(16):
        flush.zero_()
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); s = torch.sum(x); b.record(); b.synchronize()
        if r > 0:
            ms.append(a.elapsed_time(b))
    ms.sort()
    med = ms[len(ms) // 2]
    print(f"{name:22s} {med * 1e3:8.1f} us {n * 4 / (med * 1e-3) / 1e9:8.1f} GB/s  (torch {torch.__version__})")
PY
