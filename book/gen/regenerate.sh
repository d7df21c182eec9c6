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
        # A run named *_fails shows a wrong kernel caught: it must exit 1.
        status=0
        # shellcheck disable=SC2086
        cargo run -q -p "$ch" -- $args > "$runs/$name.txt" 2>&1 || status=$?
        want=0
        [ "${name%_fails}" = "$name" ] || want=1
        [ "$status" = "$want" ] || { echo "failed: $name (status $status, expected $want)" >&2; exit 1; }
    done < "$runs/runs.tsv"
}

# The runs every chapter's pages quote: its progression runs, and its first exercise's
# untouched stub as a student first sees it (`testNM_excerpt.txt`, N.M the exercise).
chapter_book() {
    local ch=$1 runs=target/book-runs-$1
    [ "$ch" = ch09 ] && runs=target/book-runs # the path the chapter's notes name
    chapter_runs "$ch" "$runs"
    local first test
    first=$(cargo test -q -p "$ch" --test exercises -- --list 2>/dev/null | sed -n 's/: test$//p' | head -n 1)
    test=$(echo "$first" | sed -E 's/^ex_([0-9]+)_0*([0-9]+)_.*/\1\2/')
    RUST_BACKTRACE=0 cargo test -q -p "$ch" --test exercises "$first" > "$runs/test$test.txt" 2>&1 || true
    local id
    id=$(echo "$first" | sed -E 's/^ex_([0-9]+)_0*([0-9]+)_.*/\1.\2/')
    sed -n "/^exercise $id/,/read:/p" "$runs/test$test.txt" > "$runs/test${test}_excerpt.txt"
    # A chapter's own extra runs, if it has any (extra_ch09: the PTX register report).
    if declare -F "extra_$ch" > /dev/null; then "extra_$ch" "$runs"; fi
    mkdir -p "book/src/$ch"
    BOOK_RUNS="$runs" python3 book/gen/gen.py "book/gen/$ch" "book/src/$ch"
}

# Chapter 9's pages quote the PTX build's register report (needs the pinned nightly).
extra_ch09() {
    local runs=$1
    PTX_CHECK_VERBOSE=1 .ci/ptx-check solutions > "$runs/ptxcheck_full.txt" 2>&1
    # The header names the architectures ptxas checks; the registers are the last one's
    # (sm_90, the H100's). Folded before the toolchain to fit the book's column.
    { grep "^ptx-check: PTX for" "$runs/ptxcheck_full.txt" | sed 's/, toolchain/,\n           toolchain/'
      grep -E "^  histo_(fastest|coarse_interleaved|registers|u32_shared) " "$runs/ptxcheck_full.txt"; } > "$runs/ptx_excerpt.txt"
    [ -s "$runs/ptx_excerpt.txt" ] && grep -q "^  histo_fastest " "$runs/ptx_excerpt.txt" ||
        { echo "regenerate.sh: no register report in $runs/ptxcheck_full.txt" >&2; exit 1; }
    # How histo_decrement's parameters look in PTX (the parameters section).
    sed -n '/^\.visible \.entry histo_decrement(/,/histo_decrement_param_1+8\]/p' target/ptx/solutions.ptx > "$runs/ptx_params.txt"
    [ -s "$runs/ptx_params.txt" ] || { echo "no histo_decrement in target/ptx/solutions.ptx" >&2; exit 1; }
}

# Every chapter by default, from the course's one list (crates/chapters).
if [ $# -eq 0 ]; then set -- $(cargo run -q -p chapters); fi
for ch in "$@"; do
    [ -d "book/gen/$ch" ] || { echo "no book templates for chapter $ch (book/gen/$ch)" >&2; exit 2; }
    chapter_book "$ch"
done
