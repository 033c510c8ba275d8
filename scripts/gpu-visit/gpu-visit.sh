#!/usr/bin/env bash
# Tide's figures on an NVIDIA GPU machine that has the CUDA toolkit, CMake, ninja and Python with
# numpy, but neither Swift nor a network, and lets each command run ten minutes and bring along
# 64 MiB (docs/speed.md, "On an NVIDIA GPU"; what the figures are for: the GPU issue).
#
#   bash scripts/gpu-visit/gpu-visit.sh pack      # here: fills .build/gpu-visit (40 MB) and
#                                                 # .build/gpu-visit-model (two parts of 39 MB)
#   bash scripts/gpu-visit/gpu-visit.sh measure   # there, carrying .build/gpu-visit: one call
#   bash scripts/gpu-visit/gpu-visit.sh model N   # there, carrying .build/gpu-visit-model/model.N
#                                                 # alone, for N = 1 and 2; the second measures drafting
#
# pack writes: tide.tar.xz (the stripped release binary and the shared libraries it loads, but
# llama.cpp's), llama.cpp.tar.xz (the pinned llama-cpp-python's llama.cpp, pruned of what the build
# does not read), smollm2-vocab.gguf (the default model's tokenizer, for a random-weight model of its
# shape), and the default model requantized to pure Q4_0 (77 MB, it still copies text; Q2_0 does
# not) in two parts, so that each call's load stays under 64 MiB with the checkout.
#
# measure keeps its work in $TIDE_GPU_WORK (/tmp/tide-gpu), outside the checkout, so a second
# call on the same warm machine finds the build; it builds llama.cpp with CUDA there (about five
# minutes on 16 cores), makes the random-weight models, and runs, in order of what is missing, each
# step bounded by `timeout`: the default offload, one stream against llama-bench tg128, teacher
# forcing against regenerating, the first request's time to first token and serve at 1/8/32
# clients against llama-server, a transcript recorded and replayed there, SIGTERM to serve, and
# the same for a Phi-3-mini shape. Every output goes to $OUT/gpu-visit (the run tool brings it
# back), and a summary to standard output.
#
# TIDE_GPU_CPU=1 runs measure against a CPU build instead (to try this script without a GPU:
# LLAMA_BUILD=<a llama.cpp build folder with bin/> skips the build, TIDE_GPU_CLIENTS="1 8" sends
# fewer clients than "1 1 1 8 32": three single clients in a row, the first the server's first request).
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
KIT="$ROOT/.build/gpu-visit"
PARTS_DIR="$ROOT/.build/gpu-visit-model"
WORK="${TIDE_GPU_WORK:-/tmp/tide-gpu}"
LLAMA_CPP_PYTHON_VERSION="0.3.36"   # as scripts/setup.sh pins it
PARTS=2
CLIENTS="${TIDE_GPU_CLIENTS:-1 1 1 8 32}"

log() { printf '%s\n' "$*" >&2; }
die() { log "gpu-visit: $*"; exit 1; }

# --- here ---------------------------------------------------------------------------------------

pack() {
    command -v swift >/dev/null || die "pack runs where Swift is (this checkout's machine)"
    local model="${XDG_CACHE_HOME:-$HOME/.cache}/tide/models/SmolLM2-135M-Instruct.Q8_0.gguf"
    [ -f "$model" ] || die "no default model at $model: run make run first"
    local python="${XDG_CACHE_HOME:-$HOME/.cache}/tide/llama-server/bin/python"
    [ -x "$python" ] || die "no llama-cpp-python environment at $python: run scripts/setup.sh first"
    rm -rf "$KIT" "$PARTS_DIR" && mkdir -p "$KIT" "$PARTS_DIR"
    local stage; stage="$(mktemp -d)"
    trap 'rm -rf "$stage"' RETURN

    log "gpu-visit: building Tide (release)"
    (cd "$ROOT" && swift build -c release >&2) || die "the release build failed"
    mkdir -p "$stage/tide/lib"
    cp "$ROOT/.build/release/tide" "$stage/tide/tide" && strip "$stage/tide/tide"
    # Every library the binary loads but the C and C++ runtimes (the CUDA build there needs that
    # machine's own) and llama.cpp's (the CUDA build's).
    ldd "$ROOT/.build/release/tide" | awk '/=> \// { print $1, $3 }' | while read -r name path; do
        case "$name" in
            libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libgcc_s.so*|libstdc++.so*|libllama*|libggml*|libmtmd*) ;;
            *) cp -L "$path" "$stage/tide/lib/" ;;
        esac
    done
    tar -C "$stage" -cJf "$KIT/tide.tar.xz" tide

    log "gpu-visit: llama.cpp from llama-cpp-python $LLAMA_CPP_PYTHON_VERSION"
    python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$stage" \
        "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" >&2 || die "could not fetch llama-cpp-python's source"
    tar -C "$stage" -xzf "$stage/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz"
    local src="$stage/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp"
    rm -rf "$src"/{docs,media,tests,benches,examples,pocs,skills,app,ci} "$src"/tools/{tts,cvector-generator,export-lora,imatrix,perplexity,rpc,tuning,results,fit-params,cli,completion,batched-bench,gguf-split,tokenize}
    find "$src/models" -maxdepth 1 -name 'ggml-vocab-*' ! -name 'ggml-vocab-phi-3.gguf' -delete
    for backend in cann hexagon hip metal musa opencl openvino sycl virtgpu vulkan webgpu zdnn zendnn et; do
        rm -rf "$src/ggml/src/ggml-$backend"
    done
    rm -rf "$src/tools/ui/dist"
    # The CMake files name the folders they add; drop the lines for those removed.
    sed -i -E '/add_subdirectory\((cvector-generator|export-lora|imatrix|perplexity|rpc|tuning|results|fit-params|cli|completion|batched-bench|gguf-split|tokenize|tts)\)/d' "$src/tools/CMakeLists.txt"
    tar -C "$(dirname "$src")" -cJf "$KIT/llama.cpp.tar.xz" llama.cpp

    log "gpu-visit: the default model's tokenizer, and the model in $PARTS parts"
    GGUF_PY="$src/gguf-py" "$python" "$ROOT/scripts/gpu-visit/random-model.py" --vocab "$model" --tokenizer-only \
        --out "$KIT/smollm2-vocab.gguf" >&2 || die "could not write the tokenizer"
    "$python" - "$model" "$stage/model.gguf" <<'PY' >&2 || die "could not requantize the model"
import ctypes, sys, llama_cpp
params = llama_cpp.llama_model_quantize_default_params()
params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_0
params.allow_requantize = True
params.pure = True
sys.exit(llama_cpp.llama_model_quantize(sys.argv[1].encode(), sys.argv[2].encode(), ctypes.byref(params)))
PY
    sha256sum "$stage/model.gguf" | cut -d' ' -f1 > "$KIT/model.sha256"
    split -n "$PARTS" -d -a 1 "$stage/model.gguf" "$stage/part."
    for n in $(seq 1 "$PARTS"); do mv "$stage/part.$((n - 1))" "$PARTS_DIR/model.$n"; done
    du -b "$KIT"/* "$PARTS_DIR"/* >&2
    log "gpu-visit: carry .build/gpu-visit ($(( $(du -cb "$KIT" | tail -1 | cut -f1) / 1048576 )) MiB) for measure, then"
    log "  .build/gpu-visit-model/model.N ($(( $(du -b "$PARTS_DIR/model.1" | cut -f1) / 1048576 )) MiB each) for model N"
}

# --- there --------------------------------------------------------------------------------------

OUTDIR="${OUT:-$WORK/out}/gpu-visit"
step() {  # step SECONDS NAME COMMAND...: runs one measurement, bounded, into its own file
    local seconds="$1" name="$2"; shift 2
    local start=$SECONDS
    timeout -k 5 "$seconds" "$@" > "$OUTDIR/$name.txt" 2>&1
    local status=$?
    printf '%-28s status %3d  %4ds\n' "$name" "$status" "$((SECONDS - start))" | tee -a "$OUTDIR/summary.txt" >&2
    return $status
}

setup_there() {
    mkdir -p "$WORK" "$OUTDIR"
    if [ "${KIT_OPTIONAL:-0}" != 1 ]; then
        [ -d "$KIT" ] || die "no .build/gpu-visit here: carry it (pack makes it)"
        [ -x "$WORK/tide/tide" ] || tar -C "$WORK" -xJf "$KIT/tide.tar.xz" || die "could not unpack Tide"
        cp "$KIT/model.sha256" "$WORK/"
    fi
    BUILD="${LLAMA_BUILD:-$WORK/llama/build}"
    if [ ! -e "$BUILD/bin/llama-bench" ]; then
        [ -n "${LLAMA_BUILD:-}" ] && die "LLAMA_BUILD=$LLAMA_BUILD has no bin/llama-bench"
        rm -rf "$WORK/llama" && mkdir -p "$WORK/llama" && tar -C "$WORK/llama" -xJf "$KIT/llama.cpp.tar.xz" --strip-components=1
        local cuda=ON arch=""
        if [ "${TIDE_GPU_CPU:-0}" = 1 ]; then cuda=OFF; else
            arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')"
            [ -n "$arch" ] || die "nvidia-smi gave no compute capability"
        fi
        log "gpu-visit: building llama.cpp (CUDA $cuda${arch:+, sm_$arch})"
        step "${TIDE_GPU_BUILD_SECONDS:-480}" build-llama.cpp bash -c "cmake -S '$WORK/llama' -B '$BUILD' -G Ninja -DGGML_CUDA=$cuda ${arch:+-DCMAKE_CUDA_ARCHITECTURES=$arch} \
            -DGGML_NATIVE=ON -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
            -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DCMAKE_BUILD_TYPE=Release \
            && cmake --build '$BUILD' -j$(nproc) --target llama llama-bench llama-server llama-quantize" \
            || { tail -30 "$OUTDIR/build-llama.cpp.txt" >&2; die "the llama.cpp build failed"; }
    fi
    export LD_LIBRARY_PATH="$BUILD/bin:$WORK/tide/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export XDG_CACHE_HOME="$WORK/cache" XDG_CONFIG_HOME="$WORK/config"
    TIDE="$WORK/tide/tide"
    "$TIDE" --version > /dev/null || die "Tide does not start here: $("$TIDE" --version 2>&1 | head -3)"
}

random_models() {
    export GGUF_PY="$WORK/llama/gguf-py"
    [ -d "$GGUF_PY" ] || GGUF_PY="$(dirname "$BUILD")/gguf-py"
    if [ ! -f "$WORK/smollm2-shape.gguf" ]; then
        step 120 model-smollm2-shape bash -c "python3 '$ROOT/scripts/gpu-visit/random-model.py' --vocab '$KIT/smollm2-vocab.gguf' --arch llama --n-embd 576 \
            --n-layer 30 --n-head 9 --n-head-kv 3 --n-ff 1536 --ctx 8192 --name smollm2-shape --out '$WORK/smollm2-f16.gguf' \
            && '$BUILD/bin/llama-quantize' '$WORK/smollm2-f16.gguf' '$WORK/smollm2-shape.gguf' Q8_0 && rm '$WORK/smollm2-f16.gguf'"
    fi
    if [ ! -f "$WORK/phi3-shape.gguf" ] && [ "${TIDE_GPU_CPU:-0}" != 1 ]; then
        step 240 model-phi3-shape bash -c "python3 '$ROOT/scripts/gpu-visit/random-model.py' --vocab '$WORK/llama/models/ggml-vocab-phi-3.gguf' --arch phi3 \
            --n-embd 3072 --n-layer 32 --n-head 32 --n-ff 8192 --ctx 4096 --name phi3-shape \
            --template '$WORK/llama/models/templates/microsoft-Phi-3.5-mini-instruct.jinja' --out '$WORK/phi3-f16.gguf' \
            && '$BUILD/bin/llama-quantize' '$WORK/phi3-f16.gguf' '$WORK/phi3-shape.gguf' Q4_K_M && rm '$WORK/phi3-f16.gguf'"
    fi
}

# serve_figures LABEL MODEL: the first request and 1/8/32 clients, Tide's serve then llama-server's.
serve_figures() {
    local label="$1" model="$2" port=18411 pid
    "$TIDE" serve --model "$model" --port "$port" --parallel 32 --ctx-size 2048 > "$OUTDIR/$label-serve-tide.log" 2>&1 &
    pid=$!
    wait_ready "$port" && {
        for n in $CLIENTS; do step 120 "$label-tide-$n-clients" python3 "$ROOT/scripts/gpu-visit/load.py" "http://127.0.0.1:$port" "$n" 128 "tide-$n"; cat "$OUTDIR/$label-tide-$n-clients.txt" >> "$OUTDIR/serve.jsonl"; done
    }
    kill -TERM "$pid"; wait "$pid"; echo "tide serve exited with status $? after SIGTERM" >> "$OUTDIR/$label-serve-tide.log"
    tail -3 "$OUTDIR/$label-serve-tide.log" >> "$OUTDIR/summary.txt"
    port=18412
    "$BUILD/bin/llama-server" -m "$model" --port "$port" -np 32 -c 65536 -ngl 999 > "$OUTDIR/$label-serve-llama.log" 2>&1 &
    pid=$!
    wait_ready "$port" && {
        for n in $CLIENTS; do step 120 "$label-llama-$n-clients" python3 "$ROOT/scripts/gpu-visit/load.py" "http://127.0.0.1:$port" "$n" 128 "llama-server-$n"; cat "$OUTDIR/$label-llama-$n-clients.txt" >> "$OUTDIR/serve.jsonl"; done
    }
    kill -TERM "$pid"; wait "$pid" 2>/dev/null
}

# wait_ready PORT: until the server there answers GET /health with 200 (llama-server listens, and
# answers 503, while it loads the model).
wait_ready() {
    for _ in $(seq 1 240); do
        python3 -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:$1/health', timeout=1).status != 200)" \
            2>/dev/null && return 0
        sleep 0.5
    done
    log "gpu-visit: nothing ready on port $1"; return 1
}

measure() {
    setup_there
    nvidia-smi -L > "$OUTDIR/gpu.txt" 2>&1
    random_models
    local smol="$WORK/smollm2-shape.gguf" phi="$WORK/phi3-shape.gguf"
    # §4: the default offload (no --gpu-layers) and where the model runs.
    step 60 default-offload "$TIDE" generate --model "$smol" --stats --temperature 0 --max-tokens 16 "Hi"
    # §1: one stream, Tide's engine (greedy in the graph; the preset's sampling among the graph's candidates) against llama-bench.
    step 60 llama-bench-smollm2 "$BUILD/bin/llama-bench" -m "$smol" -p 0 -n 128 -r 5 -ngl 999
    step 150 decode-smollm2 "$TIDE" bench --model "$smol" --only decode --rounds 5
    # §2: teacher forcing against regenerating.
    step 150 teacher-forcing-smollm2 "$TIDE" bench --model "$smol" --only teacher-forcing --rounds 3
    # §3 and §4: the first request, serve at 1/8/32 clients, SIGTERM.
    serve_figures smollm2 "$smol"
    # A transcript recorded on the GPU and replayed there: teacher forcing confirms its replies
    # (no checks of their words, which a random model cannot pass).
    printf '%s\n' '# three greedy replies to record and replay' '@temperature 0' '@max-tokens 200' \
        'user: Write a short story about a lighthouse.' 'user: Now one about a ship.' 'user: And one about the sea.' > "$WORK/replay.tide"
    step 60 transcript-record "$TIDE" run --model "$smol" --quiet --out "$WORK/recorded" "$WORK/replay.tide"
    step 60 transcript-replay "$TIDE" run --model "$smol" "$WORK/recorded/replay.tide"
    if [ -f "$phi" ]; then
        step 60 llama-bench-phi3 "$BUILD/bin/llama-bench" -m "$phi" -p 0 -n 128 -r 5 -ngl 999
        step 150 decode-phi3 "$TIDE" bench --model "$phi" --only decode --rounds 3
        step 150 teacher-forcing-phi3 "$TIDE" bench --model "$phi" --only teacher-forcing --rounds 1
        serve_figures phi3 "$phi"
    fi
    cat "$OUTDIR/summary.txt"
}

# model N: the real model's part N has come; with every part here, drafting is measured on it.
model() {
    local n="$1"
    mkdir -p "$WORK" "$OUTDIR"
    [ -f "$PARTS_DIR/model.$n" ] || die "no .build/gpu-visit-model/model.$n here: carry it"
    cp "$PARTS_DIR/model.$n" "$WORK/"
    for part in $(seq 1 "$PARTS"); do [ -f "$WORK/model.$part" ] || { log "gpu-visit: part $part is still missing"; return 0; }; done
    [ -x "$WORK/tide/tide" ] || die "$WORK holds no Tide: the first call (measure) did not run on this machine"
    [ -f "$WORK/model.sha256" ] || die "$WORK holds no checksum: the first call (measure) did not run on this machine"
    KIT_OPTIONAL=1 setup_there
    draft
    cat "$OUTDIR/summary.txt"
}

draft() {
    local real="$WORK/smollm2-q4_0.gguf"
    if [ ! -f "$real" ]; then
        cat $(seq -f "$WORK/model.%g" 1 "$PARTS") > "$real"
        [ "$(sha256sum "$real" | cut -d' ' -f1)" = "$(cat "$WORK/model.sha256")" ] || { rm -f "$real"; die "the joined model's checksum differs"; }
    fi
    step 300 draft-smollm2-q4_0 "$TIDE" bench --model "$real" --only draft --rounds 5
}

case "${1:-}" in
    pack) pack ;;
    measure) measure ;;
    model) [ -n "${2:-}" ] || die "model N: which part"; model "$2" ;;
    *) die "usage: gpu-visit.sh pack | measure | model N" ;;
esac
