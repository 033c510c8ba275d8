// The C side of Tide's Lua sandbox. Lua reports errors with longjmp, which must never cross
// Swift frames: every call that can raise an error runs inside a protected call made here, and
// Swift only sees status codes and messages.
#ifndef TIDE_CLUA_SHIM_H
#define TIDE_CLUA_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <lua.h>

/// Why the last protected call was stopped by the sandbox, if it was.
typedef enum {
    TIDE_LIMIT_NONE = 0,
    TIDE_LIMIT_INSTRUCTIONS = 1,
    TIDE_LIMIT_TIME = 2,
    TIDE_LIMIT_MEMORY = 3,
} tide_limit;

/// Creates a sandboxed state: a memory-capped allocator and only the safe libraries (base
/// without dofile/loadfile/print and with a text-only load, string without dump, table, math,
/// utf8, and os.clock/os.time/os.date). The library functions that loop in C (patterns, and
/// those listed in Sandbox.h) charge their work to each call's limits. Returns NULL if the state
/// cannot be created.
lua_State *tide_lua_open(size_t memory_limit);

/// Closes a state made by tide_lua_open.
void tide_lua_close(lua_State *L);

/// Loads a text chunk (binary chunks are refused) and leaves the function on the stack.
/// Returns a Lua status; on error the message is on the stack.
int tide_lua_load(lua_State *L, const char *code, size_t length, const char *chunk_name);

/// Calls the function below `nargs` arguments under the sandbox's limits: at most
/// `instruction_budget` units of work (VM instructions, and what C code and allocations charge;
/// 0: no limit) and, as a guard against work that cannot be counted, `seconds` of wall-clock
/// time (0: no limit). Returns a Lua status; on error, the stack holds one string: the message with a traceback.
int tide_lua_pcall(lua_State *L, int nargs, int nresults, int64_t instruction_budget, double seconds);

/// Whether a call since the last asking read what depends on when and where it runs: os.clock,
/// os.time without a table, os.date without a time, math.random or math.randomseed (a plugin
/// that reads them may decide otherwise another time). Asking clears it.
int tide_lua_took_outside(lua_State *L);

/// Which limit stopped the last tide_lua_pcall, if any.
tide_limit tide_lua_last_limit(lua_State *L);

/// The units of work the last tide_lua_pcall spent, as its instruction budget counts them: what C
/// code and allocations charged, and the VM's instructions — every one when the state counts
/// exactly (tide_lua_count_exactly), else in whole steps of a thousand.
int64_t tide_lua_last_spent(lua_State *L);

/// Whether calls count every VM instruction they run (`on` non-zero), for traces and costs: the
/// instruction hook then runs at each instruction, which makes plain Lua code a few times slower,
/// rather than every thousand.
void tide_lua_count_exactly(lua_State *L, int on);

/// For host functions doing long work during a call: charges `instructions` units to the call's
/// instruction budget and checks its deadline (at most every 4096 units). Returns 1 when a limit
/// is exhausted; the host function should then stop and return, and the call fails with that
/// limit's error (a limit, once hit, cannot be caught by the plugin).
int tide_lua_spend(lua_State *L, int64_t instructions);

/// What a host function receives: the string argument of the call, if any, and a token list;
/// and the calling state, for tide_lua_spend.
typedef struct {
    lua_State *state;
    const char *text;
    size_t text_length;
    const int32_t *tokens;
    size_t token_count;
    double number;
    int has_number;
} tide_host_input;

/// What a host function returns. Swift fills it with malloc'd memory; C pushes it to Lua and
/// frees it. A non-NULL error is raised as a Lua error (by C, never across Swift frames).
typedef struct {
    char *text;
    size_t text_length;
    int32_t *tokens;
    size_t token_count;
    double *numbers;
    size_t number_count;
    char *error;
    int has_text;
    int has_tokens;
    int has_numbers;
} tide_host_output;

/// The one Swift entry point behind every `tide.*` host function; `name` says which.
typedef void (*tide_host_function)(void *context, const char *name, const tide_host_input *input,
                                   tide_host_output *output);

/// Pushes Tide's own `tide` table, creating it (and the global of that name) on first use. It is
/// kept in the registry, which plugins cannot reach, so the host writes to the table it made
/// whatever a plugin did to the global (`tide = nil` or a table with metamethods).
void tide_lua_push_tide(lua_State *L);

/// Adds `name` to Tide's `tide` table (see `tide_lua_push_tide`) as a Lua function that passes its
/// first argument (a string or number, or a list of integers) and an optional second number to
/// `function`, and returns its results: text, then tokens, then numbers, each if present.
void tide_lua_add_host_function(lua_State *L, const char *name, tide_host_function function, void *context);

// Lua's macros, as functions Swift can call.
void tide_lua_pop(lua_State *L, int n);
void tide_lua_newtable(lua_State *L);
int tide_lua_isfunction(lua_State *L, int index);
int tide_lua_istable(lua_State *L, int index);
int tide_lua_isnil(lua_State *L, int index);
const char *tide_lua_tostring(lua_State *L, int index, size_t *length);
int tide_lua_upvalueindex(int i);
int tide_lua_registryindex(void);

#endif
