"""The submissions of the grader's GPU session (crates/grade/gpu/prepare-session.sh): small
edits of the reference solutions, each a folder holding kernels/src.

    python3 submissions.py COURSE_ROOT OUT_DIR

right     the solutions as they are
racy      9.3 counted with a load and a store (lost updates: a race on global memory)
trapping  9.4 panics in each block's first thread (a trap on the GPU)
buggy     what the emulator fails and a GPU alone once passed: out of bounds in 5.1, 9.7 and
          9.10; the wrong technique in 5.3 and 9.9
"""
import os, shutil, sys
root = sys.argv[1]; out = sys.argv[2]
def make(name, edits):
    src = os.path.join(out, name, "kernels", "src")
    os.makedirs(src, exist_ok=True)
    for f in ["ch05.rs", "ch09.rs"]:
        t = open(os.path.join(root, "solutions/src", f)).read()
        for (file, old, new) in edits:
            if file == f:
                assert t.count(old) >= 1, (name, old)
                t = t.replace(old, new, 1)
        open(os.path.join(src, f), "w").write(t)
    shutil.copy(os.path.join(root, "kernels/src/lib.rs"), os.path.join(src, "lib.rs"))
make("right", [])
# 9.3 counted with a load and a store: lost updates (a race on global memory).
make("racy", [("ch09.rs", "        histo.atomic_add(byte_bin(data.load(i), num_bins), 1);\n        i += stride;",
               "        let b = byte_bin(data.load(i), num_bins);\n        let v = histo.load(b);\n        histo.store(b, v + 1);\n        i += stride;")])
# 9.4 panics in every block's first thread: a trap on the GPU.
make("trapping", [("ch09.rs", "    let block = thread::block_idx_x();\n    let private = block * num_bins;",
                   "    let block = thread::block_idx_x();\n    if thread::thread_idx_x() == 0 {\n        panic!(\"9.4 gives up\");\n    }\n    let private = block * num_bins;")])
# The emulator's failures the GPU once missed: out of bounds in 5.1, 9.7, 9.10; the wrong
# technique in 5.3 (each thread a contiguous chunk: right, uncoalesced) and 9.9 (byte loads, no vectors).
make("buggy", [
  ("ch05.rs", "    if i < a.len() {\n        a.store(i, b.load(i).wrapping_mul(c.load(i)));\n    }",
              "    a.store(i, b.load(i).wrapping_mul(c.load(i)));"),
  ("ch05.rs", "    let stride = thread::grid_dim_x() * thread::block_dim_x();\n    let mut i = thread::index_1d();\n    while i < a.len() {\n        a.store(i, b.load(i).wrapping_mul(c.load(i)));\n        i += stride;\n    }",
              "    let threads = thread::grid_dim_x() * thread::block_dim_x();\n    let per = a.len().div_ceil(threads);\n    let mut i = thread::index_1d() * per;\n    let end = (i + per).min(a.len());\n    while i < end {\n        a.store(i, b.load(i).wrapping_mul(c.load(i)));\n        i += 1;\n    }"),
  ("ch09.rs", "    let mut run_bin = NO_BIN;\n    let mut run_len = 0u32;\n    let stride = thread::grid_stride_x();\n    let mut i = thread::index_1d();\n    while i < data.len() {",
              "    let mut run_bin = NO_BIN;\n    let mut run_len = 0u32;\n    let stride = thread::grid_stride_x();\n    let mut i = thread::index_1d();\n    while i <= data.len() {"),
  ("ch09.rs", "    let mut counts = [0u32; REGISTER_BINS as usize];\n    let stride = thread::grid_stride_x();\n    let mut i = thread::index_1d();\n    while i < data.len() {",
              "    let mut counts = [0u32; REGISTER_BINS as usize];\n    let stride = thread::grid_stride_x();\n    let mut i = thread::index_1d();\n    while i <= data.len() {"),
  ("ch09.rs", "    let vectors = data.cast::<U32x4>();\n    let n = vectors.len();",
              "    let vectors = data.cast::<U32x4>();\n    let n = 0 * vectors.len();"),
])
