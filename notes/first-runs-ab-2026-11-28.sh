#!/usr/bin/env bash
# First `cargo test -p ch09` on fresh clones: A = c3ec3d8 (before), B = 6e6dd9a with an
# empty lanes cache (a first copy), C = 6e6dd9a with the cache the previous B run filled
# (a second copy). Alternated so the machine's load falls on each alike.
set -u
# Run from the course's repository (or set COURSE to it).
course=${COURSE:-$(pwd)}
log=${LOG:-/tmp/first-runs-ab.log}
run() { # label commit cache
  d=/tmp/ab-$1; rm -rf $d; git clone -q "$course" $d; cd $d; git checkout -q $2
  t0=$(date +%s.%N)
  COURSE_LANES_CACHE=$3 cargo test -q -p ch09 > /tmp/ab-$1.txt 2>&1
  t1=$(date +%s.%N)
  grep -c "^  hint: " /tmp/ab-$1.txt > /tmp/ab-$1.hints
  echo "$1 $2 $(echo "$t1-$t0" | bc) s hints=$(cat /tmp/ab-$1.hints) load=$(cut -d' ' -f1 /proc/loadavg)" >> $log
  cd /; rm -rf $d
}
for i in 1 2 3; do
  rm -rf /tmp/first-runs-cache$i
  run A$i c3ec3d8 off
  run B$i 6e6dd9a /tmp/first-runs-cache$i
  run C$i 6e6dd9a /tmp/first-runs-cache$i
done
echo done >> $log
