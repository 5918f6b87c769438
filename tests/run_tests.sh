#!/bin/sh
# Runs the test programs given, side by side (most of their time is PoCL
# compiling kernels, one core each), the first named first: exit 0 pass,
# 77 skip, anything else fails.  Prints one line per program in the order
# given, with its wall and CPU time (user + system, its child processes
# too), and a summary; a program's output is in
# $OCLCONV_BUILD/tests/<name>.log.
logs=${OCLCONV_BUILD:-build}/tests
mkdir -p "$logs" || exit 99
for t in "$@"; do
    name=$(basename "$t")
    (
        start=$(date +%s)
        "$t" > "$logs/$name.log" 2>&1
        rc=$?
        # times' second line: the children's user and system time, as XmY.Zs
        # (in this shell: a command substitution would be a new process).
        times > "$logs/$name.times"
        cpu=$(sed -n 2p "$logs/$name.times" | tr 'ms' '  ' |
              awk '{ printf "%.0f", 60 * ($1 + $3) + $2 + $4 }')
        rm -f "$logs/$name.times"
        echo "$rc $(( $(date +%s) - start )) $cpu" > "$logs/$name.status"
    ) &
done
wait
pass=0 fail=0 skip=0
for t in "$@"; do
    name=$(basename "$t")
    read -r rc secs cpu < "$logs/$name.status" || { rc=99; secs=0; cpu=0; }
    rm -f "$logs/$name.status"
    case $rc in
        0) pass=$((pass + 1)); echo "PASS  $t (${secs}s, ${cpu} CPU-s)" ;;
        77) skip=$((skip + 1)); echo "SKIP  $t (${secs}s, ${cpu} CPU-s)"; tail -n 5 "$logs/$name.log" ;;
        *) fail=$((fail + 1)); echo "FAIL  $t (exit $rc, ${secs}s, ${cpu} CPU-s)"; tail -n 30 "$logs/$name.log" ;;
    esac
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
