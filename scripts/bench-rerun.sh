#!/usr/bin/env bash
# What the reply cache and the kept prompt states save (docs/benchmarks.md, "Runs that compute
# nothing twice"): SCRIPTS generated scripts (default 8), each a system prompt of some 2,000 tokens
# and three turns, run three times into a cache of their own — first, then unchanged, then with
# every script's last user turn changed — and Conversations/ run twice, then without the case a
# rerun must replay (an MCP server's tool). Prints each run's time and its
# ratio to the first, side by side in one run.
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
grep -E '^(replies|cases):' "$WORK/run.txt"
printf 'Conversations/: first %.1f s; unchanged %.2f s (%.3fx)\n' "$first" "$again" "$(echo "$again / $first" | bc -l)"
# The case a rerun must replay: the one offered an MCP server's tools (the server starts, and may
# answer otherwise another day); its server's start alone; then the others alone, in a cache of
# their own.
alone() { local start end; start=$(date +%s.%N); "$@" > /dev/null || [ $? -le 1 ]; end=$(date +%s.%N); echo "$end - $start" | bc; }
replayed=$(alone "$TIDE" run -q Conversations/mcp-tools.tide)
server=$(alone "$TIDE" mcp list --mcp 'mcp-server-time --local-timezone UTC')
printf 'of which replayed on every run: mcp-tools.tide, %.2f s alone (its replies from the cache); tide mcp list on its server: %.2f s\n' \
    "$replayed" "$server"
export TIDE_CACHE_DIR="$WORK/determined"
determined=$(find Conversations -name '*.tide' ! -name mcp-tools.tide | sort)
first=$(seconds $determined)
again=$(seconds $determined)
grep -E '^cases:' "$WORK/run.txt"
printf 'Conversations/ but mcp-tools.tide: first %.1f s; unchanged %.2f s (%.3fx)\n' "$first" "$again" "$(echo "$again / $first" | bc -l)"
