#!/usr/bin/env bash
# First-run times on a fresh clone of the course (issue 46.6): three runs.
set -u
out=/work/firstrun.log
for i in 1 2 3; do
  d=/tmp/fr$i; rm -rf $d; git clone -q /work/main $d; cd $d
  t0=$(date +%s); cargo test -q -p ch09 > /tmp/fr-test-$i.txt 2>&1; t1=$(date +%s)
  l1=$(cut -d' ' -f1-3 /proc/loadavg)
  cargo run -q -p learn -- --once > /tmp/fr-learn-$i.txt 2>&1; t2=$(date +%s)
  l2=$(cut -d' ' -f1-3 /proc/loadavg)
  cargo run -q --release -p grade -- --out /tmp/fr-graded-$i > /tmp/fr-grade-$i.txt 2>&1; t3=$(date +%s)
  l3=$(cut -d' ' -f1-3 /proc/loadavg)
  echo "run $i: first cargo test -p ch09 $((t1-t0)) s (load $l1); then learn --once $((t2-t1)) s (load $l2); first release grader $((t3-t2)) s (load $l3)" >> $out
  cd /; rm -rf $d
done
echo done >> $out
