#!/usr/bin/env bash
# Runs the whole test suite against llama.cpp built other ways than `make test` builds it, to show
# that Tide's verdicts do not rest on one CPU's rounding (docs/conversations.md, "Across machines").
#
#   scripts/test-builds.sh              avx2, and avx512 where this CPU has AVX-512
#   scripts/test-builds.sh avx2         only the AVX2 build
#   TEST_FILTER=RunCommandTests scripts/test-builds.sh avx2    a part of the suite
#
# Each build (scripts/setup.sh with TIDE_LLAMA_CPU=avx2|avx512: GGML_NATIVE off, those instructions
# on, everything else as the default build) is installed into a prefix of its own under
# ${XDG_CACHE_HOME:-~/.cache}/tide/builds and cached there; the suite, built once against the
# default build's headers, runs with LD_LIBRARY_PATH pointing at the build's libraries (the script
# checks that the tests load them). Then each build checks the transcripts of Conversations/ that
# the default build recorded (teacher forcing within the tolerance), and measures how far its
# scores are from the default build's (`tide bench --only score-drift`) and how far the embedding
# model's similarities of Benchmarks/similarity's pairs move (scripts/similarity-threshold.py). Not part of CI: two
# builds take about 10 minutes, each suite about 20. A log per build is kept in the build's
# prefix; the last lines summarise every run.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1mtest-builds:\033[0m %s\n' "$*" >&2; }

variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
    variants=(avx2)
    grep -qw avx512f /proc/cpuinfo && variants+=(avx512)
fi
for variant in "${variants[@]}"; do
    case "$variant" in
        avx2) grep -qw avx2 /proc/cpuinfo || { log "this CPU has no AVX2"; exit 2; } ;;
        avx512) grep -qw avx512f /proc/cpuinfo || { log "this CPU has no AVX-512: run scripts/test-builds.sh avx2"; exit 2; } ;;
        *) log "unknown build '$variant': avx2 or avx512"; exit 2 ;;
    esac
done

bash scripts/setup.sh
swift build --build-tests
bundle=$(compgen -G '.build/debug/*PackageTests.xctest' | head -n 1 || true)
[ -n "$bundle" ] || { log "no test bundle in .build/debug"; exit 1; }
cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
family=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
model=$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')

# Transcripts of the examples and the scores of the drift figure, recorded with the default
# build, for each other build to check.
builds="${XDG_CACHE_HOME:-$HOME/.cache}/tide/builds"
transcripts="$builds/transcripts"
scores="$builds/scores-default.json"
similarities="$builds/similarity-default.json"
mkdir -p "$builds"
rm -rf "$transcripts" "$scores"
log "recording the transcripts of Conversations/ and the scores of the drift figure with the default build"
if ! recorded=$(.build/debug/tide run --quiet --out "$transcripts" Conversations/ 2>&1); then
    log "Conversations/ does not pass with the default build:"
    echo "$recorded" >&2
    exit 1
fi
if ! python3 scripts/similarity-threshold.py --tide .build/debug/tide > "$similarities"; then
    log "the similarity figures failed with the default build"
    exit 1
fi
if ! drift=$(.build/debug/tide bench --only score-drift --scores "$scores" 2>&1); then
    log "the score-drift figure failed with the default build:"
    echo "$drift" >&2
    exit 1
fi

results=()
status=0
for variant in "${variants[@]}"; do
    prefix="$builds/$variant"
    TIDE_LLAMA_CPU="$variant" TIDE_PREFIX="$prefix" TIDE_LLAMA_ONLY=1 bash scripts/setup.sh
    loaded=$(LD_LIBRARY_PATH="$prefix/lib" ldd "$bundle" | awk '/libllama/ { print $3 }')
    if [ "$(realpath "$loaded")" != "$(realpath "$prefix/lib/libllama.so.0" 2>/dev/null || echo missing)" ]; then
        log "the tests would load $loaded, not the $variant build in $prefix/lib"
        exit 1
    fi
    log "running the suite against the $variant build ($prefix)"
    output="$prefix/test.log"
    set +e
    LD_LIBRARY_PATH="$prefix/lib" swift test --skip-build --no-parallel ${TEST_FILTER:+--filter "$TEST_FILTER"} 2>&1 | tee "$output"
    code=${PIPESTATUS[0]}
    set -e
    [ "$code" -eq 0 ] || status=1
    verdict=$(grep -E '^.{0,4}Test run with' "$output" | tail -n 1 | sed 's/^[^T]*//' || true)
    results+=("$variant build, the suite (exit $code): ${verdict:-no summary; see $output}")
    set +e
    checked=$(LD_LIBRARY_PATH="$prefix/lib" .build/debug/tide run --quiet "$transcripts" 2>&1)
    code=$?
    set -e
    [ "$code" -eq 0 ] || status=1
    results+=("$variant build, the default build's transcripts (exit $code): $(echo "$checked" | tail -n 2 | tr '\n' ' ')")
    moved=$(LD_LIBRARY_PATH="$prefix/lib" python3 scripts/similarity-threshold.py --tide .build/debug/tide --against "$similarities" \
        | python3 -c 'import json, sys; m = json.load(sys.stdin)["moved_from_other_build"]; print("largest %.2e, median %.2e" % (m["largest"], m["median"]))' \
        || echo "not measured")
    results+=("$variant build, the similarities of Benchmarks/similarity's 40 pairs moved from the default build's: $moved")
    log "score drift against the default build:"
    LD_LIBRARY_PATH="$prefix/lib" .build/debug/tide bench --only score-drift --scores "$scores" 2>/dev/null \
        | grep 'score drift' >&2 || true
done

log "CPU: $cpu (family $family, model $model); AVX-512: $(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)"
for result in "${results[@]}"; do log "$result"; done
exit $status
