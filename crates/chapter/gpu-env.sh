# The environment of every GPU session script (bench/gpu-*.sh), sourced from
# the folder bench/prepare-gpu.sh made, where it lies beside them:
#
#   HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
#   . "$HERE/gpu-env.sh" DEFAULT_OUT "$@"
#
# It sets, from HERE:
#   COURSE_LANES_DIR  the sandbox's WebAssembly modules prepare-gpu.sh built: there is no
#                     cargo on the GPU machine (crates/host/src/lanes.rs reads them);
#   OUT_DIR           the script's first argument, else $OUT, else HERE/DEFAULT_OUT; made,
#                     and absolute;
#   COURSE_GIT_COMMIT the commit prepare-gpu.sh built from, which a bench's JSON names (git
#                     there would see only the copy of the working tree the machine got);
#                     also as CH09_GIT_COMMIT, the name builds before 2026-11-28 read;
#   PATH              with the CUDA toolkit's and Nsight Compute's folders;
#   RUST_BACKTRACE=0  a failing check prints its report, not a backtrace.
export COURSE_LANES_DIR="$HERE/lanes"
OUT_DIR=${2:-${OUT:-$HERE/$1}}
mkdir -p "$OUT_DIR"
OUT_DIR=$(cd "$OUT_DIR" && pwd)
for d in /usr/local/cuda/bin /usr/local/cuda-*/bin /opt/cuda/bin /opt/nvidia/nsight-compute/*; do
  [ -d "$d" ] && PATH=$PATH:$d
done
COURSE_GIT_COMMIT=$(head -n 1 "$HERE/COMMIT" 2>/dev/null || echo unknown)
CH09_GIT_COMMIT=$COURSE_GIT_COMMIT
export PATH COURSE_GIT_COMMIT CH09_GIT_COMMIT RUST_BACKTRACE=0
