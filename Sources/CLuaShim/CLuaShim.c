#include "CLuaShim.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/// Per-state bookkeeping, kept as the allocator's user data.
typedef struct {
    size_t limit;
    size_t used;
    int64_t instructions_left;
    double deadline;
    tide_limit stopped;
    int enforcing;  // the cap applies inside plugin code, not while Tide marshals values
} sandbox;

enum { HOOK_EVERY = 1000 };

static sandbox *sandbox_of(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (sandbox *)ud;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/// Refuses allocations past the cap; Lua turns a NULL into a memory error it can recover from.
static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    sandbox *box = (sandbox *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        box->used -= old;
        return NULL;
    }
    if (box->enforcing && nsize > old && box->used - old + nsize > box->limit) {
        box->stopped = TIDE_LIMIT_MEMORY;
        return NULL;
    }
    void *grown = realloc(ptr, nsize);
    if (grown) box->used = box->used - old + nsize;
    return grown;
}

static const char *limit_message(tide_limit limit) {
    switch (limit) {
    case TIDE_LIMIT_INSTRUCTIONS: return "instruction budget exceeded";
    case TIDE_LIMIT_TIME: return "time limit exceeded";
    case TIDE_LIMIT_MEMORY: return "memory limit exceeded";
    default: return "limit exceeded";
    }
}

/// Runs every HOOK_EVERY instructions: charges the budget and checks the clock.
static void limit_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    sandbox *box = sandbox_of(L);
    if (box->stopped != TIDE_LIMIT_NONE) luaL_error(L, "%s", limit_message(box->stopped));
    if (box->instructions_left > 0) {
        box->instructions_left -= HOOK_EVERY;
        if (box->instructions_left <= 0) {
            box->stopped = TIDE_LIMIT_INSTRUCTIONS;
            luaL_error(L, "%s", limit_message(box->stopped));
        }
    }
    if (box->deadline > 0 && now_seconds() > box->deadline) {
        box->stopped = TIDE_LIMIT_TIME;
        luaL_error(L, "%s", limit_message(box->stopped));
    }
}

/// Message handler: any error value becomes a string with a traceback.
static int traceback_handler(lua_State *L) {
    const char *message = lua_tostring(L, 1);
    if (message == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
            message = lua_tostring(L, -1);
        } else {
            message = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
        }
    }
    luaL_traceback(L, L, message, 1);
    return 1;
}

/// `load` for text chunks only: load(chunk [, chunkname [, mode [, env]]]) with mode forced to "t".
static int text_only_load(lua_State *L) {
    size_t length;
    const char *chunk = luaL_checklstring(L, 1, &length);
    const char *name = luaL_optstring(L, 2, "=(load)");
    int has_env = !lua_isnone(L, 4);
    int status = luaL_loadbufferx(L, chunk, length, name, "t");
    if (status != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (has_env) {
        lua_pushvalue(L, 4);
        if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
    }
    return 1;
}

/// pcall/xpcall that cannot swallow the sandbox's own errors: once a limit has been hit, the
/// error goes on up to Tide, however many protected calls the plugin nests.
static int guarded_protected_call(lua_State *L) {
    int arguments = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, arguments, LUA_MULTRET);
    tide_limit stopped = sandbox_of(L)->stopped;
    if (stopped != TIDE_LIMIT_NONE) return luaL_error(L, "%s", limit_message(stopped));
    return lua_gettop(L);
}

static void guard(lua_State *L, const char *name) {
    lua_getglobal(L, name);
    lua_pushcclosure(L, guarded_protected_call, 1);
    lua_setglobal(L, name);
}

/// setmetatable that refuses __gc: finalizers run whenever the collector does, outside any
/// call that Tide protects and limits.
static int safe_setmetatable(lua_State *L) {
    if (lua_istable(L, 2) && lua_getfield(L, 2, "__gc") != LUA_TNIL) {
        return luaL_error(L, "__gc metamethods are not allowed in plugins");
    }
    lua_settop(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 2, 1);
    return 1;
}

static void open_library(lua_State *L, const char *name, lua_CFunction open) {
    luaL_requiref(L, name, open, 1);
    lua_pop(L, 1);
}

/// Keeps only the named fields of the global table `library`.
static void keep_only(lua_State *L, const char *library, const char *const *allowed) {
    lua_getglobal(L, library);
    lua_newtable(L);
    for (const char *const *field = allowed; *field; field++) {
        lua_getfield(L, -2, *field);
        lua_setfield(L, -2, *field);
    }
    lua_setglobal(L, library);
    lua_pop(L, 1);
}

static int open_sandbox(lua_State *L) {
    open_library(L, LUA_GNAME, luaopen_base);
    open_library(L, LUA_STRLIBNAME, luaopen_string);
    open_library(L, LUA_TABLIBNAME, luaopen_table);
    open_library(L, LUA_MATHLIBNAME, luaopen_math);
    open_library(L, LUA_UTF8LIBNAME, luaopen_utf8);
    open_library(L, LUA_OSLIBNAME, luaopen_os);
    static const char *const os_allowed[] = {"clock", "time", "date", NULL};
    keep_only(L, LUA_OSLIBNAME, os_allowed);
    static const char *const removed[] = {"dofile", "loadfile", "print", NULL};
    for (const char *const *name = removed; *name; name++) {
        lua_pushnil(L);
        lua_setglobal(L, *name);
    }
    lua_pushcfunction(L, text_only_load);
    lua_setglobal(L, "load");
    guard(L, "pcall");
    guard(L, "xpcall");
    lua_getglobal(L, "setmetatable");
    lua_pushcclosure(L, safe_setmetatable, 1);
    lua_setglobal(L, "setmetatable");
    lua_getglobal(L, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    return 0;
}

lua_State *tide_lua_open(size_t memory_limit) {
    sandbox *box = calloc(1, sizeof(sandbox));
    if (!box) return NULL;
    box->limit = memory_limit;
    lua_State *L = lua_newstate(capped_alloc, box);
    if (!L) {
        free(box);
        return NULL;
    }
    lua_pushcfunction(L, open_sandbox);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        tide_lua_close(L);
        return NULL;
    }
    return L;
}

void tide_lua_close(lua_State *L) {
    sandbox *box = sandbox_of(L);
    lua_close(L);
    free(box);
}

size_t tide_lua_memory_used(lua_State *L) { return sandbox_of(L)->used; }

int tide_lua_load(lua_State *L, const char *code, size_t length, const char *chunk_name) {
    sandbox *box = sandbox_of(L);
    box->enforcing = 1;
    int status = luaL_loadbufferx(L, code, length, chunk_name, "t");
    box->enforcing = 0;
    return status;
}

int tide_lua_pcall(lua_State *L, int nargs, int nresults, int64_t instruction_budget, double seconds) {
    sandbox *box = sandbox_of(L);
    box->stopped = TIDE_LIMIT_NONE;
    box->instructions_left = instruction_budget;
    box->deadline = seconds > 0 ? now_seconds() + seconds : 0;
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, traceback_handler);
    lua_insert(L, base);
    if (instruction_budget > 0 || seconds > 0) lua_sethook(L, limit_hook, LUA_MASKCOUNT, HOOK_EVERY);
    box->enforcing = 1;
    int status = lua_pcall(L, nargs, nresults, base);
    box->enforcing = 0;
    lua_sethook(L, NULL, 0, 0);
    lua_remove(L, base);
    if (status != LUA_OK && box->stopped == TIDE_LIMIT_NONE && status == LUA_ERRMEM) box->stopped = TIDE_LIMIT_MEMORY;
    return status;
}

tide_limit tide_lua_last_limit(lua_State *L) { return sandbox_of(L)->stopped; }

void tide_lua_pop(lua_State *L, int n) { lua_pop(L, n); }
void tide_lua_newtable(lua_State *L) { lua_newtable(L); }
int tide_lua_isfunction(lua_State *L, int index) { return lua_isfunction(L, index); }
int tide_lua_istable(lua_State *L, int index) { return lua_istable(L, index); }
int tide_lua_isnil(lua_State *L, int index) { return lua_isnil(L, index); }
const char *tide_lua_tostring(lua_State *L, int index, size_t *length) { return lua_tolstring(L, index, length); }
int tide_lua_upvalueindex(int i) { return lua_upvalueindex(i); }
int tide_lua_registryindex(void) { return LUA_REGISTRYINDEX; }

/// The Lua side of a host function: upvalues are the Swift function, its context and its name.
static int host_trampoline(lua_State *L) {
    tide_host_function function = (tide_host_function)lua_touserdata(L, lua_upvalueindex(1));
    void *context = lua_touserdata(L, lua_upvalueindex(2));
    const char *name = lua_tostring(L, lua_upvalueindex(3));
    tide_host_input input = {0};
    int32_t *tokens = NULL;
    if (lua_type(L, 1) == LUA_TSTRING || lua_type(L, 1) == LUA_TNUMBER) {
        input.text = lua_tolstring(L, 1, &input.text_length);
    } else if (lua_istable(L, 1)) {
        lua_Unsigned count = lua_rawlen(L, 1);
        if (count > (1u << 20)) return luaL_error(L, "too many tokens (%d)", (int)count);
        tokens = lua_newuserdatauv(L, (count ? count : 1) * sizeof(int32_t), 0);
        for (lua_Unsigned i = 0; i < count; i++) {
            lua_rawgeti(L, 1, (lua_Integer)i + 1);
            int is_number = 0;
            lua_Integer value = lua_tointegerx(L, -1, &is_number);
            lua_pop(L, 1);
            if (!is_number) return luaL_error(L, "token %d is not an integer", (int)i + 1);
            tokens[i] = (int32_t)value;
        }
        input.tokens = tokens;
        input.token_count = count;
    } else if (!lua_isnoneornil(L, 1)) {
        return luaL_error(L, "tide.%s expects a string or a list of token ids, got %s", name, luaL_typename(L, 1));
    }
    if (lua_type(L, 2) == LUA_TNUMBER) {
        input.number = lua_tonumber(L, 2);
        input.has_number = 1;
    }
    tide_host_output output = {0};
    function(context, name, &input, &output);
    if (output.error) {
        lua_pushstring(L, output.error);
        free(output.error);
        free(output.text);
        free(output.tokens);
        free(output.numbers);
        return lua_error(L);
    }
    int results = 0;
    if (output.has_text) {
        lua_pushlstring(L, output.text ? output.text : "", output.text_length);
        results++;
    }
    free(output.text);
    if (output.has_tokens) {
        lua_createtable(L, (int)output.token_count, 0);
        for (size_t i = 0; i < output.token_count; i++) {
            lua_pushinteger(L, output.tokens[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        results++;
    }
    free(output.tokens);
    if (output.has_numbers) {
        lua_createtable(L, (int)output.number_count, 0);
        for (size_t i = 0; i < output.number_count; i++) {
            lua_pushnumber(L, output.numbers[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        results++;
    }
    free(output.numbers);
    return results;
}

void tide_lua_add_host_function(lua_State *L, const char *name, tide_host_function function, void *context) {
    if (lua_getglobal(L, "tide") != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setglobal(L, "tide");
    }
    lua_pushlightuserdata(L, (void *)function);
    lua_pushlightuserdata(L, context);
    lua_pushstring(L, name);
    lua_pushcclosure(L, host_trampoline, 3);
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
}
