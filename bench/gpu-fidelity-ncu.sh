#!/usr/bin/env bash
# gpu-fidelity-ncu.sh: the GPU side of the emulator-against-Nsight-Compute comparison only,
# from the folder that bench/prepare-gpu.sh built: ncu runs at launch shapes
# drawn from a seed (`fidelity.py --seed SEED --shapes 3 --ncu-only`), at two shapes that
# decide 9.9's one exception (n = 1000001 and 700001, 128-thread blocks: fastest_split
# predicts +48 and 0 shared atomic instructions), and ncu's source view (per SASS
# instruction) of 9.5's static kernel and 9.9 there. The emulator's side, deterministic,
# runs anywhere afterwards:
#
#   fidelity.py --bin ch09=.gpu/ch09 --bin ch05=.gpu/ch05 --seed SEED --shapes 3 \
#       --text .gpu/bench-text.md --ncu-logs OUT/seed/logs --out DIR
#
#   bash .gpu/gpu-fidelity-ncu.sh [OUT_DIR] [SEED]   (about 1.5 minutes on an H100)
# Everything goes into OUT_DIR/fidelity-ncu.tgz.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=/dev/null
. "$HERE/gpu-env.sh" fidelity-ncu "${1:-}"
SEED=${2:-40}
RES=$(mktemp -d)/fidelity-ncu
mkdir -p "$RES/seed" "$RES/split"
NCU=$(command -v ncu)
{
  date -u +"date %Y-%m-%d %H:%M UTC"
  echo "commit $(cat "$HERE/COMMIT" 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  ncu --version | tail -n 1
} 2>&1 | tee "$RES/versions.txt"
cp "$RES/versions.txt" "$RES/seed/"
cp "$RES/versions.txt" "$RES/split/"
args=(--bin "ch09=$HERE/ch09" --bin "ch05=$HERE/ch05" --seed "$SEED" --shapes 3 --ncu-only --timeout 150)
[ -f "$HERE/bench-text.md" ] && args+=(--text "$HERE/bench-text.md")
timeout 240 python3 "$HERE/fidelity.py" "${args[@]}" --out "$RES/seed" --ncu "$NCU" 2>&1 | tail -n 8
timeout 120 python3 "$HERE/fidelity.py" --bin "ch09=$HERE/ch09" --n 1000001 --n 700001 --input uniform \
  --args "ch09=--block 128 --step 9.5 --step 9.9" --ncu-only --out "$RES/split" --ncu "$NCU" 2>&1 | tail -n 3
for n in 1000001 700001; do
  timeout 60 ncu --clock-control none --section SourceCounters --kernel-name regex:"^(histo_private_shared|histo_fastest)\$" \
    --page source --csv --print-source sass "$HERE/ch09" --device gpu --step 9.5 --step 9.9 --n "$n" \
    --input uniform --block 128 >"$RES/split/source-$n.csv" 2>&1
  echo "source $n exit $?"
done
tar -C "$(dirname "$RES")" -czf "$OUT_DIR/fidelity-ncu.tgz" fidelity-ncu
ls -la "$OUT_DIR"
