// What the sandbox's own library functions (LuaPatterns.c, BoundedLibrary.c) share with
// CLuaShim.c: the running call's budget, and how they are installed. Not part of the module's
// public interface.
#ifndef TIDE_SANDBOX_H
#define TIDE_SANDBOX_H

#include <lua.h>
#include <stdint.h>

/// Work done in C between two clock checks, in instruction units.
enum { TIDE_CHECK_EVERY = 4096 };

/// Charges `instructions` units of work done in C to the running call's instruction budget and
/// checks its deadline (at most every TIDE_CHECK_EVERY units). When either is exhausted, marks
/// the call as stopped (so no pcall can swallow it) and raises the sandbox's limit error, as
/// the instruction hook does. Outside a limited call it does nothing.
void tide_sandbox_charge(lua_State *L, int64_t instructions);

/// Raises the sandbox's limit error if the running call has been stopped by a limit (for
/// functions that return after running code that may have hit one, like the parser).
void tide_sandbox_reraise(lua_State *L);

/// Replaces string.find, match, gmatch and gsub in the table on top of the stack.
void tide_open_patterns(lua_State *L);

/// Replaces the library functions whose C loops could otherwise outrun the limits
/// (string.rep, upper, lower, reverse, byte, format, pack, unpack; table.concat, move, insert,
/// remove, sort; utf8.char, len, offset). The string, table and utf8 libraries must be open.
void tide_open_bounded_library(lua_State *L);

#endif
