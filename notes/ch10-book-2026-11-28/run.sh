#!/usr/bin/env bash
# Builds and runs probe.cu (no Rust needed): from the repository root,
#   bash notes/ch10-book-2026-11-28/run.sh > probe.txt 2>&1
set -euo pipefail
dir=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o /tmp/ch10-probe "$dir/probe.cu"
date -u +"date: %Y-%m-%dT%H:%M:%SZ"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -1
/tmp/ch10-probe
