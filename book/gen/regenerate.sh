#!/usr/bin/env bash
# Regenerates book/src/ch09/*.md from the templates in book/gen/ch09: runs every command
# the pages quote (the chapter CLI on the emulator, one failing stub test, the PTX
# register report), then fills the templates with the real output. Every number the
# prose states is taken from, or checked against, these runs.
#
#   book/gen/regenerate.sh            (from the repository root; needs the pinned nightly
#                                      for the PTX excerpt, see README)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=target/book-runs
mkdir -p "$runs"
cargo build -q -p ch09
python3 book/gen/gen.py --list-runs > "$runs/runs.tsv"
while IFS=$'\t' read -r name args; do
    echo "run: cargo run -p ch09 -- $args" >&2
    # shellcheck disable=SC2086
    cargo run -q -p ch09 -- $args > "$runs/$name.txt" 2>&1 || { echo "failed: $name" >&2; exit 1; }
done < "$runs/runs.tsv"
RUST_BACKTRACE=0 cargo test -q -p ch09 --test exercises ex_9_1_sequential > "$runs/test91.txt" 2>&1 || true
sed -n '/^exercise 9.1/,/read:/p' "$runs/test91.txt" > "$runs/test91_excerpt.txt"
PTX_CHECK_VERBOSE=1 .ci/ptx-check solutions > "$runs/ptxcheck_full.txt" 2>&1
{ grep "^ptx-check: ptxas" "$runs/ptxcheck_full.txt"; grep -E "^  histo_(fastest|coarse_interleaved|registers|u32_shared) " "$runs/ptxcheck_full.txt"; } > "$runs/ptx_excerpt.txt"
BOOK_RUNS="$runs" python3 book/gen/gen.py book/gen/ch09 book/src/ch09
