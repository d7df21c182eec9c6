#!/usr/bin/env bash
# Builds and runs probe.cu (no Rust needed): from the repository root,
#   bash notes/seeds-probes-2026-11-28/run.sh > probe.txt
set -euo pipefail
dir=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o /tmp/seeds-probe "$dir/probe.cu"
date -u +"date: %Y-%m-%dT%H:%M:%SZ"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -1
/tmp/seeds-probe
cuobjdump -sass /tmp/seeds-probe | grep -A40 "Function : .*branches" | grep -E "BSSY|BSYNC|BRA|WARPSYNC" | head -20 || true
