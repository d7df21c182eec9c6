"""torch.sum on the same input as the course's bench, timed with CUDA events.

Usage: python3 torch_sum.py FILE u32|f32 BINS WARMUP REPS   (BINS is ignored)
Prints one JSON object (median/min ms, "bins": [] and "sum"), or {"skipped": reason} when
PyTorch or a GPU is not available. A u32 input is summed as int32 into int32 (the same
bits; `dtype=torch.int32` keeps torch from widening every element to int64 first, which
would time a different job) and reported modulo 2^32, as the chapter's u32 sum wraps.
"""
import json
import sys


def main() -> int:
    if len(sys.argv) != 6:
        print("usage: torch_sum.py FILE u32|f32 BINS WARMUP REPS", file=sys.stderr)
        return 2
    path, dtype, warmup, reps = sys.argv[1], sys.argv[2], int(sys.argv[4]), int(sys.argv[5])
    try:
        import numpy as np
        import torch
    except ImportError as e:
        print(json.dumps({"impl": "torch.sum", "skipped": f"import failed: {e}"}))
        return 0
    if not torch.cuda.is_available():
        print(json.dumps({"impl": "torch.sum", "skipped": "no CUDA device"}))
        return 0
    raw = np.fromfile(path, dtype=np.float32 if dtype == "f32" else np.int32)
    x = torch.from_numpy(raw).cuda()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    # Every run starts from a cold L2, as the bench's own launches do: twice the L2 is
    # read first, outside the timed region.
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20)
    flush = torch.zeros(max(2 * l2, 1 << 20) // 4, dtype=torch.int32, device="cuda")
    times = []
    out = None
    for r in range(warmup + reps):
        flush.max()
        start.record()
        out = torch.sum(x) if dtype == "f32" else torch.sum(x, dtype=torch.int32)
        stop.record()
        torch.cuda.synchronize()
        if r >= warmup:
            times.append(start.elapsed_time(stop))
    times.sort()
    total = out.item()
    if dtype != "f32":
        total = int(total) % (1 << 32)
    print(json.dumps({
        "impl": "torch.sum",
        "device": torch.cuda.get_device_name(0),
        "bytes": int(raw.nbytes),
        "median_ms": times[len(times) // 2],
        "min_ms": times[0],
        "reps": reps,
        "bins": [],
        "sum": total,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
