#!/usr/bin/env bash
# Runs EleutherAI's lm-evaluation-harness (lm_eval, installed by scripts/setup.sh) on the
# multiple-choice task shipped in Benchmarks/lm-eval (tide_mc: 50 questions, local files, no
# download) against `tide serve`, through the harness's `local-completions` model: each choice
# is scored by its log-likelihood after the question, read from /v1/completions with `echo` and
# `logprobs`, the harness tokenizing through the server's own /tokenize (`tokenizer_backend=remote`).
# Then checks every choice's log-likelihood against llama.cpp's own scores of the same text
# (scripts/lm-eval-reference.py, through llama-cpp-python's bindings of the library `tide` loads).
#
# Usage: scripts/lm-eval.sh [--limit N] [--tide PATH] [--model MODEL]
#   --limit N   the first N questions only (default: all 50)
#   --tide      the tide binary (default: .build/release/tide)
#   --model     the model tide serves (default: smollm2-135m-instruct; a name or a .gguf path)
# Prints the harness's table, then one line of JSON: the items, both accuracies and the largest
# difference between a choice's two log-likelihoods. Exits 1 when the accuracies differ or a
# log-likelihood is 1e-3 or more away from llama.cpp's.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
limit=""
tide="$here/.build/release/tide"
model="smollm2-135m-instruct"
while [ $# -gt 0 ]; do
    case "$1" in
        --limit) limit="$2"; shift 2 ;;
        --tide) tide="$2"; shift 2 ;;
        --model) model="$2"; shift 2 ;;
        *) printf 'lm-eval: unknown argument %s; see the header of %s\n' "$1" "$0" >&2; exit 2 ;;
    esac
done
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tide"
harness="$cache/lm-eval/bin/lm_eval"
python="$cache/llama-server/bin/python"
[ -x "$harness" ] && [ -x "$python" ] || { echo "lm-eval: run scripts/setup.sh first (it installs lm_eval)" >&2; exit 1; }
[ -x "$tide" ] || { echo "lm-eval: no tide binary at $tide: build it (swift build -c release) or give --tide" >&2; exit 1; }

work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; }; rm -rf "$work"' EXIT
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
gguf=$("$tide" models info "$model" | sed -n 's/^file: *//p' | head -n 1)
[ -f "$gguf" ] || { echo "lm-eval: tide models info $model names no model file" >&2; exit 1; }
"$tide" serve --port "$port" --model "$model" > "$work/serve.log" 2>&1 &
server=$!
up=""
for _ in $(seq 1 120); do
    curl -sf "http://127.0.0.1:$port/health" > /dev/null && { up=1; break; }
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
    sleep 0.5
done
[ -n "$up" ] || { echo "lm-eval: tide serve did not answer within 60 s" >&2; cat "$work/serve.log" >&2; exit 1; }

# The task's data file is named relative to the task's folder; the harness reaches nothing but
# the server (no hub look-ups).
(cd "$here/Benchmarks/lm-eval" && HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 "$harness" run --model local-completions \
    --model_args "model=tide,base_url=http://127.0.0.1:$port/v1/completions,tokenizer_backend=remote,tokenized_requests=False" \
    --tasks tide_mc --include_path . ${limit:+--limit "$limit"} --output_path "$work/out" --log_samples 2> "$work/harness.log") \
    || { cat "$work/harness.log" >&2; exit 1; }
samples=$(find "$work/out" -name 'samples_tide_mc_*.jsonl' | head -n 1)
[ -n "$samples" ] || { echo "lm-eval: the harness wrote no samples" >&2; cat "$work/harness.log" >&2; exit 1; }
library=$(ldd "$tide" | sed -n 's/^.*libllama[^ ]* => \(.*\)\/libllama[^/]*$/\1/p' | head -n 1)
result=$(LLAMA_CPP_LIB_PATH="$library" "$python" "$here/scripts/lm-eval-reference.py" "$gguf" "$samples")
echo "$result"
"$python" -c 'import json, sys; r = json.loads(sys.argv[1]); sys.exit(0 if r["harness_accuracy"] == r["reference_accuracy"] and r["largest_difference"] < 1e-3 else 1)' "$result"
