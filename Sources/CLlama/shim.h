// llama.cpp's C API, found through pkg-config `llama` (installed by scripts/setup.sh), and the
// CPU backend's thread pool (ggml-cpu.h), which pkg-config does not name.
#include <llama.h>
#include <ggml-cpu.h>
