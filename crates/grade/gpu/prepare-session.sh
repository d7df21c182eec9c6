#!/usr/bin/env bash
# crates/grade/gpu/prepare-session.sh: build, on a machine with Rust (no GPU needed), what the
# grader's GPU session needs on a GPU machine without Rust, into .gpu/grading/ (git-ignored):
#
#   grade, ch09           release binaries, --features cuda, stripped
#   prepared/<name>/      `grade --prepare-gpu` of each submission of submissions.py (the
#                         answers' PTX and sandbox modules, the reference's), and of the stubs
#   class/<name>/         right, racy and trapping, prepared as a class (`--class … --prepare-gpu`)
#   session.sh            runs it all there: bash .gpu/grading/session.sh OUT_DIR (from the
#                         repository root: the grader reads the course's files)
#
# Needs cargo, the pinned nightly (the PTX builds), python3, strip. Usage:
#   bash crates/grade/gpu/prepare-session.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
ROOT=$PWD
DEST=$ROOT/.gpu/grading
rm -rf "$DEST"
mkdir -p "$DEST"
cargo build -q --release -p grade -p ch09 --features grade/cuda,ch09/cuda
for b in grade ch09; do
  cp target/release/$b "$DEST/$b"
  strip "$DEST/$b"
done
SUBS=$ROOT/target/gpu-grading-submissions
rm -rf "$SUBS"
python3 crates/grade/gpu/submissions.py "$ROOT" "$SUBS"
mkdir -p "$SUBS/stubs/kernels/src"
cp crates/learn/pristine/*.rs "$SUBS/stubs/kernels/src/"
for s in right buggy stubs; do
  "$DEST/grade" --student "$SUBS/$s" --prepare-gpu "$DEST/prepared/$s"
done
mkdir -p "$SUBS/class"
for s in right racy trapping; do
  mv "$SUBS/$s" "$SUBS/class/$s"
done
"$DEST/grade" --class "$SUBS/class" --prepare-gpu "$DEST/class"
cp crates/grade/gpu/session.sh "$DEST/session.sh"
git rev-parse HEAD > "$DEST/COMMIT"
du -sh "$DEST"
[ "$(du -sm "$DEST" | cut -f1)" -lt 60 ] || { echo "prepare-session: $DEST is over 60 MiB" >&2; exit 1; }
