// llama.cpp's C API, found through pkg-config `llama` (installed by scripts/setup.sh).
#include <llama.h>
