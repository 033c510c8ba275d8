#!/usr/bin/env bash
# The matrix at scale: ROWS generated rows (default 1000) × 2 targets of the bundled model
# (greedy, and sampled with a seed), replayed with --parallel 4 into an HTML report, into a reply
# cache of its own; then run again unchanged, every reply from the cache; then the page loaded in
# headless Chromium. Prints both runs' times and their ratio, and the page's time side by side
# with an empty page's load, for docs/benchmarks.md ("A matrix at scale").
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS="${1:-1000}"
TIDE="${TIDE:-.build/release/tide}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export TIDE_CACHE_DIR="$WORK/cache"
python3 - "$ROWS" > "$WORK/rows.jsonl" <<'PY'
import json, sys
capitals = [("France", "Paris"), ("Italy", "Rome"), ("Germany", "Berlin"), ("Spain", "Madrid"), ("Portugal", "Lisbon"),
            ("Austria", "Vienna"), ("Greece", "Athens"), ("Poland", "Warsaw"), ("Norway", "Oslo"), ("Sweden", "Stockholm"),
            ("Finland", "Helsinki"), ("Denmark", "Copenhagen"), ("Ireland", "Dublin"), ("Belgium", "Brussels"),
            ("Hungary", "Budapest"), ("Egypt", "Cairo"), ("Japan", "Tokyo"), ("China", "Beijing"), ("Russia", "Moscow"),
            ("Canada", "Ottawa"), ("Peru", "Lima"), ("Chile", "Santiago"), ("Kenya", "Nairobi"), ("Cuba", "Havana"),
            ("Thailand", "Bangkok")]
questions = ["What is the capital of {}?", "Name the capital city of {}.", "Which city is the capital of {}?",
             "{}'s capital is which city?", "Tell me the capital of {} in one sentence.",
             "In one word: the capital of {}?", "Where is the government of {} seated?", "Capital of {}?"]
rows = int(sys.argv[1])
for index in range(rows):
    country, capital = capitals[index % len(capitals)]
    question = questions[(index // len(capitals)) % len(questions)]
    print(json.dumps({"id": f"{country.lower()}-{index + 1}", "question": question.format(country), "capital": capital}))
PY
echo "rows: $ROWS × 2 targets on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
matrix() {
    "$TIDE" run -q --parallel 4 --data "$WORK/rows.jsonl" --target 'greedy: --temperature 0' \
        --target 'sampled: --temperature 0.8 --seed 7' --html "$WORK/report.html" Benchmarks/matrix/capitals.tide \
        > "$WORK/run.txt" || status=$?
}
status=0
start=$(date +%s.%N)
matrix
end=$(date +%s.%N)
[ "$status" -le 1 ] || { cat "$WORK/run.txt"; exit "$status"; }
grep -E ' passed, |^(replies|cases):' "$WORK/run.txt"
first=$(echo "$end - $start" | bc)
printf 'run: %.1f s (exit %s: checks that fail are part of the measure)\n' "$first" "$status"
status=0
start=$(date +%s.%N)
matrix
end=$(date +%s.%N)
[ "$status" -le 1 ] || { cat "$WORK/run.txt"; exit "$status"; }
grep -E ' passed, |^(replies|cases):' "$WORK/run.txt"
again=$(echo "$end - $start" | bc)
printf 'unchanged rerun: %.1f s, %.3fx the first run\n' "$again" "$(echo "$again / $first" | bc -l)"
printf 'page: %s bytes\n' "$(stat -c %s "$WORK/report.html")"
echo '<!DOCTYPE html><html><head><script>document.documentElement.dataset.readyMs = Math.round(performance.now())</script></head><body></body></html>' \
    > "$WORK/empty.html"
for round in 1 2 3; do
    page=$(python3 scripts/report-dom.py "$WORK/report.html" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ready_ms"])')
    failed=$(python3 scripts/report-dom.py "$WORK/report.html" failed-only | python3 -c 'import json,sys; print(json.load(sys.stdin)["ready_ms"])')
    empty=$(chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$WORK/empty.html" 2>/dev/null | grep -o 'data-ready-ms="[0-9]*"' | grep -o '[0-9]*')
    echo "round $round: page ready after ${page} ms (failed only: ${failed} ms; an empty page: ${empty} ms)"
done
