#!/bin/sh
# Runs each test program given; exit 0 pass, 77 skip, anything else fails.
# Prints one line per program with its time, and a summary.
pass=0 fail=0 skip=0
for t in "$@"; do
    start=$(date +%s)
    "$t" > "$t.log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    case $rc in
        0) pass=$((pass + 1)); echo "PASS  $t (${secs}s)" ;;
        77) skip=$((skip + 1)); echo "SKIP  $t (${secs}s)"; tail -n 5 "$t.log" ;;
        *) fail=$((fail + 1)); echo "FAIL  $t (exit $rc, ${secs}s)"; tail -n 30 "$t.log" ;;
    esac
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
