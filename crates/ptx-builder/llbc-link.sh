#!/usr/bin/env bash
# Stand-in for rustc's `llvm-bitcode-linker` (linker flavour `llbc`) for nvptx64-nvidia-cuda.
#
# Why: rustc links an nvptx64 cdylib by handing LLVM bitcode to `llvm-bitcode-linker`, a
# rustup component that is not published for the pinned nightly. This script does the
# same job with the `llvm-tools` component (llvm-ar, llvm-link, opt, llc).
#
# rustc calls it as:
#   llbc-link.sh --export-symbol NAME ... OBJ.o ... LIB.rlib ... -L DIR --target T \
#                --target-cpu sm_XX -o OUT.ptx -O3 [--debug]
# The objects and the rlib members are LLVM bitcode (fat LTO, -Zbuild-std=core).
#
# Cargo does not track a linker's contents. The PTX builder compiles this file in
# (include_str!) and writes it to its target dir as llbc-link-<hash of contents>.sh; the
# linker path is part of cargo's fingerprint, so an edit here relinks every kernel crate
# on the next build (after the builder itself is rebuilt, which cargo run does).
set -euo pipefail

# The builder passes the toolchain's llvm-tools directory in LLBC_LLVM_BIN. Without it
# (the script run by hand), ask rustc: the rustup proxy honours RUSTUP_TOOLCHAIN, which
# `cargo +TOOLCHAIN` sets, so the tools match the LLVM that rustc used.
if [ -n "${LLBC_LLVM_BIN:-}" ]; then
  BIN="$LLBC_LLVM_BIN"
else
  SYSROOT=$(rustc --print sysroot)
  HOST=$(rustc -vV | sed -n 's/^host: //p')
  BIN="$SYSROOT/lib/rustlib/$HOST/bin"
fi
for tool in llvm-ar llvm-link opt llc; do
  if [ ! -x "$BIN/$tool" ]; then
    echo "llbc-link.sh: $BIN/$tool not found; install it with: rustup component add --toolchain ${RUSTUP_TOOLCHAIN:-nightly} llvm-tools" >&2
    exit 1
  fi
done

exports=(); objs=(); rlibs=(); out=""; cpu="sm_70"; olvl="-O3"; features=""
while [ $# -gt 0 ]; do
  case "$1" in
    --export-symbol) exports+=("$2"); shift 2 ;;
    --target|-L) shift 2 ;;
    --target-cpu) cpu="$2"; shift 2 ;;
    # rustc passes the PTX ISA version it wants for older GPUs (sm_70: +ptx70).
    --target-feature=*) features="${1#--target-feature=}"; shift ;;
    --target-feature) features="$2"; shift 2 ;;
    -o) out="$2"; shift 2 ;;
    -O*) olvl="$1"; shift ;;
    --debug) shift ;;
    *.rlib) rlibs+=("$1"); shift ;;
    *) objs+=("$1"); shift ;;
  esac
done
if [ -z "$out" ] || [ ${#objs[@]} -eq 0 ]; then
  echo "llbc-link.sh: expected object files and -o OUT (got: ${objs[*]:-no objects}, -o '${out}')" >&2
  exit 1
fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# rlib members that are LLVM bitcode (core, compiler_builtins, the crate's dependencies).
libs=()
i=0
for r in ${rlibs[@]+"${rlibs[@]}"}; do
  d="$tmp/lib$i"; i=$((i + 1)); mkdir -p "$d"
  (cd "$d" && "$BIN/llvm-ar" x "$r")
  for m in "$d"/*; do
    # keep only bitcode members ('BC' magic); skip lib.rmeta and the like
    if [ -f "$m" ] && [ "$(head -c 2 "$m")" = "BC" ]; then libs+=("$m"); fi
  done
done

# Link the crate's own objects fully, library members only for what is needed.
"$BIN/llvm-link" "${objs[@]}" -o "$tmp/main.bc"
if [ ${#libs[@]} -gt 0 ]; then
  "$BIN/llvm-link" "$tmp/main.bc" --only-needed "${libs[@]}" -o "$tmp/linked.bc"
else
  cp "$tmp/main.bc" "$tmp/linked.bc"
fi

# Keep only the kernels (the exported symbols) public, drop the rest, optimise.
# --strip-debug: ptxas 12.x crashes on the DWARF that LLVM 22 development builds emit.
api=$(IFS=,; echo "${exports[*]:-}")
"$BIN/opt" --strip-debug --internalize-public-api-list="$api" \
  -passes="internalize,globaldce,default<O3>" "$tmp/linked.bc" -o "$tmp/opt.bc"
"$BIN/llc" "$olvl" -mtriple=nvptx64-nvidia-cuda -mcpu="$cpu" ${features:+-mattr="$features"} "$tmp/opt.bc" -o "$out"
