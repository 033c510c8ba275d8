#!/usr/bin/env bash
# What the reply cache and the kept prompt states save (docs/benchmarks.md, "Runs that compute
# nothing twice"): SCRIPTS generated scripts (default 8), each a system prompt of some 2,000 tokens
# and three turns, run three times into a cache of their own — first, then unchanged, then with
# every script's last user turn changed — and Conversations/ run twice. Prints each run's time and
# its ratio to the first, side by side in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
SCRIPTS="${1:-8}"
TIDE="${TIDE:-.build/release/tide}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export TIDE_CACHE_DIR="$WORK/cache"
mkdir -p "$WORK/scripts"
python3 - "$SCRIPTS" "$WORK/scripts" <<'PY'
import sys
count, folder = int(sys.argv[1]), sys.argv[2]
for index in range(count):
    facts = " ".join(f"Fact {i}: river {i + index} flows into lake {(i * 7 + index) % 13}, and its water is "
                     f"{['cold', 'warm', 'clear', 'muddy'][i % 4]}." for i in range(100))
    with open(f"{folder}/s{index}.tide", "w") as script:
        script.write(f"@temperature 0\n@max-tokens 32\n@ctx-size 4096\nsystem: You are a helpful assistant. {facts}\n"
                     "user: Which river flows into lake 3?\nuser: Which water is warm?\nuser: Name one clear river.\n")
PY
seconds() { local start end; start=$(date +%s.%N); "$TIDE" run -q "$@" > "$WORK/run.txt" || [ $? -le 1 ]; end=$(date +%s.%N); echo "$end - $start" | bc; }
echo "on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; $SCRIPTS scripts"
prompt=$("$TIDE" run --json --no-cache "$WORK/scripts/s0.tide" 2>/dev/null | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["replies"][0]["prompt_tokens"])')
echo "first turn's prompt: $prompt tokens"
first=$(seconds "$WORK/scripts")
again=$(seconds "$WORK/scripts")
tail -n 1 "$WORK/run.txt"
sed -i 's/Name one clear river\./Name one muddy river./' "$WORK"/scripts/*.tide
changed=$(seconds "$WORK/scripts")
tail -n 1 "$WORK/run.txt"
printf 'long prompts: first %.1f s; unchanged %.2f s (%.3fx); last turn changed %.1f s (%.3fx)\n' \
    "$first" "$again" "$(echo "$again / $first" | bc -l)" "$changed" "$(echo "$changed / $first" | bc -l)"
first=$(seconds Conversations/)
again=$(seconds Conversations/)
tail -n 1 "$WORK/run.txt"
printf 'Conversations/: first %.1f s; unchanged %.2f s (%.3fx)\n' "$first" "$again" "$(echo "$again / $first" | bc -l)"
