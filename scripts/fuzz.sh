#!/usr/bin/env bash
# Runs one fuzz target (Sources/TideFuzz) under libFuzzer, coverage-guided, for SECONDS:
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer flags…]
#   scripts/fuzz.sh list
#
# TARGET is one of script, grammar, schema, regex, json, request, plugin (docs/security.md says
# what each feeds). The targets are built once with Swift's -sanitize=fuzzer, release and
# instrumented, in .build-fuzz (about two minutes the first time). Each target's corpus grows in
# ${XDG_CACHE_HOME:-~/.cache}/tide/fuzz/corpus/TARGET and starts from the repository's own
# examples and fixtures (Conversations/, Plugins/, the schema fixtures, Fuzz/seeds/TARGET);
# findings (crash-*, timeout-* past 10 s, oom-* past 2 GiB, slow-unit-*) go to
# ${XDG_CACHE_HOME:-~/.cache}/tide/fuzz/findings/TARGET, and the run's log to run.log there.
# A finding replays with the plain build: swift build --product TideFuzz &&
# .build/debug/TideFuzz TARGET FILE. The script exits non-zero when the run found something.
# Not part of `make test`: what fuzzing finds becomes a regular test.
set -euo pipefail
cd "$(dirname "$0")/.."

targets="script grammar schema regex json request plugin"
if [[ "${1:-}" == "list" ]]; then
    echo "$targets"
    exit 0
fi
if [[ $# -lt 2 || " $targets " != *" $1 "* || ! "$2" =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags…], TARGET one of: $targets" >&2
    exit 2
fi
target="$1"
seconds="$2"
shift 2

bash scripts/setup.sh >/dev/null
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tide/fuzz"
corpus="$cache/corpus/$target"
findings="$cache/findings/$target"
mkdir -p "$corpus" "$findings"

# The linker is lld: gold fails on the instrumented objects.
swift build -c release --product TideFuzz --scratch-path .build-fuzz \
    -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld \
    -Xcc -fsanitize=fuzzer-no-link >&2

# Seeds: files of the repository that are inputs of this kind.
seed() { for file in "$@"; do [[ -f "$file" ]] && cp -n "$file" "$corpus/seed-$(basename "$file")"; done; return 0; }
shopt -s nullglob globstar
case "$target" in
    script) seed Conversations/**/*.tide Fuzz/seeds/script/* ;;
    grammar) seed Conversations/**/*.gbnf Fuzz/seeds/grammar/* ;;
    schema) seed Tests/TideFormatTests/Fixtures/Schemas/*.json Conversations/**/*.json ;;
    regex)
        seed Fuzz/seeds/regex/*
        # Every pattern of the example scripts' regex checks, one file each.
        grep -ho 'regex "[^"]*"' Conversations/*.tide | sed 's/^regex "//; s/"$//' | while IFS= read -r pattern; do
            printf '%s' "$pattern" > "$corpus/seed-pattern-$(printf '%s' "$pattern" | sha1sum | cut -c1-12)"
        done ;;
    json) seed $(git ls-files '*.json') Fuzz/seeds/request/* ;;
    request) seed Fuzz/seeds/request/* ;;
    plugin) seed Plugins/*.lua Fuzz/seeds/plugin/* ;;
esac

echo "fuzzing $target for $seconds s; corpus $corpus ($(ls "$corpus" | wc -l) inputs), findings in $findings" >&2
status=0
SWIFT_BACKTRACE=enable=no .build-fuzz/release/TideFuzz "$target" "$corpus" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -report_slow_units=5 \
    -artifact_prefix="$findings/" -print_final_stats=1 "$@" 2> "$findings/run.log" || status=$?
grep -E "^(#[0-9]+.*(DONE|pulse)|stat::|==[0-9]+== ERROR|SUMMARY)" "$findings/run.log" | tail -12 >&2
exit "$status"
