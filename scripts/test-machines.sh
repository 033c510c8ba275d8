#!/usr/bin/env bash
# Runs the whole test suite, and the examples of Conversations/, as if on other machines
# (TIDE_MACHINE: docs/conversations.md, "Another machine, simulated"), to show that no test's
# verdict rests on which words the greedy model picks here, on this machine's timings, or on how
# far another kernel's scores drift.
#
#   scripts/test-machines.sh                       the machines below, one after the other
#   scripts/test-machines.sh 'noise=5 costs=dear'  one machine of your own (or several arguments)
#   TEST_FILTER=DraftingTests scripts/test-machines.sh    a part of the suite on each
#
# The default machines: three noise seeds (scores moved by up to 0.25 logits, the drift measured
# between two CPUs' builds), one with checks as cheap as on a GPU, one with checks as dear as
# decoding each token alone, and one whose batches drift from single tokens as a GPU's do
# (docs/speed.md, "Where batches drift"). Each run's
# log is kept in ${XDG_CACHE_HOME:-~/.cache}/tide/machines; the last lines give each run's count
# and time. Not part of CI: each suite takes as long as `make test`'s tests (about 10 minutes on
# two cores).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1mtest-machines:\033[0m %s\n' "$*" >&2; }

machines=("$@")
if [ ${#machines[@]} -eq 0 ]; then
    machines=('noise=1 costs=cheap' 'noise=2 costs=dear' 'noise=3 costs=dear batch-drift=0.3')
fi

bash scripts/setup.sh
swift build --build-tests
logs="${XDG_CACHE_HOME:-$HOME/.cache}/tide/machines"
mkdir -p "$logs"

results=()
status=0
for machine in "${machines[@]}"; do
    # A machine Tide cannot read is refused before anything runs.
    TIDE_MACHINE="$machine" .build/debug/tide version > /dev/null
    name=$(echo "$machine" | tr -c 'A-Za-z0-9.=\n-' '_')
    output="$logs/$name.log"
    log "the suite on the simulated machine '$machine' (log: $output)"
    start=$(date +%s)
    set +e
    TIDE_MACHINE="$machine" swift test --skip-build --no-parallel ${TEST_FILTER:+--filter "$TEST_FILTER"} 2>&1 | tee "$output"
    code=${PIPESTATUS[0]}
    set -e
    seconds=$(( $(date +%s) - start ))
    [ "$code" -eq 0 ] || status=1
    verdict=$(grep -E '^.{0,4}Test run with' "$output" | tail -n 1 | sed 's/^[^T]*//' || true)
    results+=("'$machine', the suite (exit $code, $seconds s): ${verdict:-no summary; see $output}")
    set +e
    checked=$(TIDE_MACHINE="$machine" .build/debug/tide run --quiet Conversations/ 2>&1)
    code=$?
    set -e
    [ "$code" -eq 0 ] || status=1
    results+=("'$machine', Conversations/ (exit $code): $(echo "$checked" | tail -n 2 | tr '\n' ' ')")
done

cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
log "CPU: $cpu; $(nproc) cores"
for result in "${results[@]}"; do log "$result"; done
exit $status
