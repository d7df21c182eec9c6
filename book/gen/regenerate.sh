#!/usr/bin/env bash
# Regenerates book/src/CHAPTER/*.md from the templates in book/gen/CHAPTER: runs every
# command the pages quote (the chapter CLI on the emulator, one failing stub test, for
# chapter 9 the PTX register report), then fills the templates with the real output.
# Every number the prose states is taken from, or checked against, these runs.
#
#   book/gen/regenerate.sh            every chapter (from the repository root; chapter 9
#                                     needs the pinned nightly for its PTX excerpt, see README)
#   book/gen/regenerate.sh ch05       one chapter
set -euo pipefail
cd "$(dirname "$0")/../.."

# The runs of chapter $1 (gen.py --list-runs), each `cargo run -p $1 -- ARGS`, into $2.
chapter_runs() {
    local ch=$1 runs=$2
    mkdir -p "$runs"
    cargo build -q -p "$ch"
    python3 book/gen/gen.py --list-runs "$ch" > "$runs/runs.tsv"
    while IFS=$'\t' read -r name args; do
        echo "run: cargo run -p $ch -- $args" >&2
        # shellcheck disable=SC2086
        cargo run -q -p "$ch" -- $args > "$runs/$name.txt" 2>&1 || { echo "failed: $name" >&2; exit 1; }
    done < "$runs/runs.tsv"
}

ch09() {
    local runs=target/book-runs
    chapter_runs ch09 "$runs"
    RUST_BACKTRACE=0 cargo test -q -p ch09 --test exercises ex_9_01_sequential > "$runs/test91.txt" 2>&1 || true
    sed -n '/^exercise 9.1/,/read:/p' "$runs/test91.txt" > "$runs/test91_excerpt.txt"
    PTX_CHECK_VERBOSE=1 .ci/ptx-check solutions > "$runs/ptxcheck_full.txt" 2>&1
    { grep "^ptx-check: ptxas" "$runs/ptxcheck_full.txt"; grep -E "^  histo_(fastest|coarse_interleaved|registers|u32_shared) " "$runs/ptxcheck_full.txt"; } > "$runs/ptx_excerpt.txt"
    BOOK_RUNS="$runs" python3 book/gen/gen.py book/gen/ch09 book/src/ch09
}

ch05() {
    local runs=target/book-runs-ch05
    chapter_runs ch05 "$runs"
    # The untouched stub of 5.1, as a student first sees it.
    RUST_BACKTRACE=0 cargo test -q -p ch05 --test exercises ex_5_01_spmd > "$runs/test51.txt" 2>&1 || true
    sed -n '/^exercise 5.1/,/read:/p' "$runs/test51.txt" > "$runs/test51_excerpt.txt"
    mkdir -p book/src/ch05
    BOOK_RUNS="$runs" python3 book/gen/gen.py book/gen/ch05 book/src/ch05
}

if [ $# -eq 0 ]; then set -- ch05 ch09; fi
for ch in "$@"; do
    case "$ch" in
        ch05) ch05 ;;
        ch09) ch09 ;;
        *) echo "no chapter $ch: use ch05 or ch09" >&2; exit 2 ;;
    esac
done
