#!/usr/bin/env bash
# Builds llama.cpp's own `llama-server` for the serving benchmark (scripts/bench-serve.py
# --against llama-server, docs/benchmarks.md), from the same llama.cpp source Tide's set-up
# uses: the source distribution of the pinned llama-cpp-python, without Tide's change to it and
# with llama.cpp's default build options (native CPU, OpenMP on), except that it links
# statically (one self-contained binary) and without curl (models are local files).
# Not part of the set-up: only the benchmark needs it. Built once (about 10 minutes on two
# cores) into ${XDG_CACHE_HOME:-~/.cache}/tide/llama.cpp-server/<build id>/llama-server and
# reused; prints the binary's path.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION=$(sed -n 's/^LLAMA_CPP_PYTHON_VERSION="\(.*\)"$/\1/p' "$(dirname "$0")/setup.sh")
CMAKE_ARGS=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF)
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/tide"

log() { printf '\033[1mbuild-llama-server:\033[0m %s\n' "$*" >&2; }

cpu=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | sha256sum | cut -c1-16 || echo unknown)
id=$(echo "$LLAMA_CPP_PYTHON_VERSION ${CMAKE_ARGS[*]} $cpu" | sha256sum | cut -c1-16)
folder="$CACHE_DIR/llama.cpp-server/$id"
if [ ! -x "$folder/llama-server" ]; then
    command -v cmake >/dev/null || { log "cmake is missing: run scripts/setup.sh first"; exit 1; }
    log "building llama-server from llama-cpp-python $LLAMA_CPP_PYTHON_VERSION (about 10 minutes)"
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$work" \
        "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" >&2
    tar -xzf "$work"/llama_cpp_python-*.tar.gz -C "$work"
    tree=$(echo "$work"/llama_cpp_python-*/vendor/llama.cpp)
    cmake -S "$tree" -B "$work/build" "${CMAKE_ARGS[@]}" >/dev/null
    cmake --build "$work/build" --target llama-server -j "$(nproc)" >/dev/null
    mkdir -p "$folder"
    cp "$work/build/bin/llama-server" "$folder/llama-server.partial"
    mv "$folder/llama-server.partial" "$folder/llama-server"
fi
echo "$folder/llama-server"
