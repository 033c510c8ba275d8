// Lua 5.4's C API, found through pkg-config `lua5.4` (Debian: liblua5.4-dev).
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
