#include "CLuaShim.h"
#include "Sandbox.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/// Per-state bookkeeping, kept as the allocator's user data.
typedef struct {
    size_t limit;
    size_t used;
    int64_t instructions_left;
    double deadline;
    double seconds;  // the running call's wall-clock limit, for its message
    tide_limit stopped;
    int enforcing;  // the cap applies inside plugin code, not while Tide marshals values
    int64_t unchecked;  // units charged by C code since the clock was last read
    int read_outside;  // a call read the clock or random numbers (tide_lua_took_outside)
    int64_t spent;  // units the running (or last) call spent: VM instructions and what C code charged
    int64_t pending;  // VM instructions run since the budget was last charged
    int exact;  // calls count every VM instruction (tide_lua_count_exactly)
    lua_State *state;
} sandbox;

enum {
    HOOK_EVERY = 1000,
    /// Bytes of memory a plugin's code allocates per unit charged to its instruction budget,
    /// as for bytes a library function copies.
    BYTES_PER_UNIT = 64,
    /// Once a limit is hit, allocations from this size on are refused.
    REFUSED_ALLOCATION = 1 << 20,
    /// The parser reads `load`'s chunk in pieces of this size, charging each.
    LOAD_PIECE = 64 << 10,
};

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

static int past_deadline(const sandbox *box) { return box->deadline > 0 && now_seconds() > box->deadline; }

static tide_limit spend_in_c(sandbox *box, int64_t instructions);
static void limit_hook(lua_State *L, lua_Debug *ar);

/// Refuses allocations past the cap. Inside plugin code, charges what each allocation adds to
/// the call's instruction budget (a unit per BYTES_PER_UNIT bytes, at least one), which also
/// reads the clock now and then: work that allocates is counted as the memory it makes, so
/// code like `while true do local t = s .. "b" end` on a long `s`, which copies megabytes per
/// VM instruction, spends its budget as fast as it copies. The allocator cannot raise an error:
/// when the budget or the guard runs out, the hook is set to fire at the very next VM
/// instruction, and allocations of REFUSED_ALLOCATION bytes or more fail, which stops C code building a large
/// result (Lua turns the NULL into a memory error, which tide_lua_pcall reports as the limit).
static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    sandbox *box = (sandbox *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        box->used -= old;
        return NULL;
    }
    if (box->enforcing && nsize > old) {
        if (box->used - old + nsize > box->limit) {
            box->stopped = TIDE_LIMIT_MEMORY;
            return NULL;
        }
        if (box->stopped == TIDE_LIMIT_NONE
            && spend_in_c(box, (int64_t)((nsize - old + BYTES_PER_UNIT - 1) / BYTES_PER_UNIT)) != TIDE_LIMIT_NONE) {
            lua_sethook(box->state, limit_hook, LUA_MASKCOUNT, 1);
        }
        // Not after the memory cap refused one: Lua collects garbage and asks again.
        if ((box->stopped == TIDE_LIMIT_INSTRUCTIONS || box->stopped == TIDE_LIMIT_TIME) && nsize >= REFUSED_ALLOCATION) return NULL;
    }
    void *grown = realloc(ptr, nsize);
    if (grown) box->used = box->used - old + nsize;
    return grown;
}

/// The message of a limit, pushed onto the stack.
static const char *push_limit_message(lua_State *L, const sandbox *box) {
    switch (box->stopped) {
    case TIDE_LIMIT_INSTRUCTIONS: return lua_pushstring(L, "instruction budget exceeded");
    case TIDE_LIMIT_TIME: {
        char seconds[32];
        snprintf(seconds, sizeof seconds, "%g", box->seconds);
        return lua_pushfstring(L, "wall-clock limit of %s s exceeded before the instruction budget: the machine may be busy, "
                                  "or the hook waits on work Tide does not count (--plugin-timeout sets the limit)",
                               seconds);
    }
    case TIDE_LIMIT_MEMORY: return lua_pushstring(L, "memory limit exceeded");
    default: return lua_pushstring(L, "limit exceeded");
    }
}

/// Charges `instructions` to the running call and reads the clock when `check_clock` is set;
/// returns (and records) the limit that is now exhausted, if any.
static tide_limit spend(sandbox *box, int64_t instructions, int check_clock) {
    if (box->stopped != TIDE_LIMIT_NONE) return box->stopped;
    if (box->enforcing) box->spent += instructions;
    if (box->instructions_left > 0) {
        box->instructions_left -= instructions;
        if (box->instructions_left <= 0) return box->stopped = TIDE_LIMIT_INSTRUCTIONS;
    }
    if (check_clock && past_deadline(box)) return box->stopped = TIDE_LIMIT_TIME;
    return TIDE_LIMIT_NONE;
}

/// Charges work done in C; reads the clock once TIDE_CHECK_EVERY units have accumulated.
static tide_limit spend_in_c(sandbox *box, int64_t instructions) {
    box->unchecked += instructions;
    int check_clock = box->unchecked >= TIDE_CHECK_EVERY;
    if (check_clock) box->unchecked = 0;
    return spend(box, instructions, check_clock);
}

/// Raises the limit that stopped the running call, where the code stands.
static int raise_limit(lua_State *L) {
    luaL_where(L, 1);
    push_limit_message(L, sandbox_of(L));
    lua_concat(L, 2);
    return lua_error(L);
}

/// Runs every HOOK_EVERY VM instructions, or at each one when counting exactly (on the thread
/// running, a coroutine's as it was set when it was made): raises a limit hit in C code, and
/// every HOOK_EVERY instructions charges the budget and checks the clock.
static void limit_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    sandbox *box = sandbox_of(L);
    if (box->stopped != TIDE_LIMIT_NONE) raise_limit(L);
    box->pending += lua_gethookcount(L);
    if (box->pending < HOOK_EVERY) return;
    box->pending -= HOOK_EVERY;
    if (spend(box, HOOK_EVERY, 1) != TIDE_LIMIT_NONE) raise_limit(L);
}

void tide_sandbox_charge(lua_State *L, int64_t instructions) {
    if (spend_in_c(sandbox_of(L), instructions) != TIDE_LIMIT_NONE) raise_limit(L);
}

void tide_sandbox_reraise(lua_State *L) {
    if (sandbox_of(L)->stopped != TIDE_LIMIT_NONE) raise_limit(L);
}

int tide_lua_spend(lua_State *L, int64_t instructions) {
    return spend_in_c(sandbox_of(L), instructions) != TIDE_LIMIT_NONE;
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

/// A chunk handed to the parser in pieces, each charged to the running call: the parser is C
/// code that the hook does not interrupt.
typedef struct {
    const char *next;
    size_t left;
    sandbox *box;
} chunk_reader;

static const char *read_piece(lua_State *L, void *data, size_t *size) {
    (void)L;
    chunk_reader *reader = (chunk_reader *)data;
    *size = reader->left < LOAD_PIECE ? reader->left : LOAD_PIECE;
    // Parsing costs about as much per byte of text as a VM instruction.
    if (*size == 0 || spend_in_c(reader->box, (int64_t)*size) != TIDE_LIMIT_NONE) {
        *size = 0;  // the parser stops here; text_only_load then raises the limit's error
        return NULL;
    }
    const char *piece = reader->next;
    reader->next += *size;
    reader->left -= *size;
    return piece;
}

/// `load` for text chunks only: load(chunk [, chunkname [, mode [, env]]]) with mode forced to "t".
static int text_only_load(lua_State *L) {
    chunk_reader reader = {0};
    reader.next = luaL_checklstring(L, 1, &reader.left);
    reader.box = sandbox_of(L);
    const char *name = luaL_optstring(L, 2, "=(load)");
    int has_env = !lua_isnone(L, 4);
    int status = lua_load(L, read_piece, &reader, name, "t");
    tide_sandbox_reraise(L);
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
    if (sandbox_of(L)->stopped != TIDE_LIMIT_NONE) return raise_limit(L);
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

/// A library function whose result depends on when and where it runs (the clock, random
/// numbers): notes the call, then makes it. Upvalue 1 is the function; upvalue 2 the position of
/// the argument that, given, makes the result depend on the arguments alone (os.time's table,
/// os.date's time), or 0.
static int noting_outside(lua_State *L) {
    lua_Integer fixing = lua_tointeger(L, lua_upvalueindex(2));
    if (fixing == 0 || lua_isnoneornil(L, (int)fixing)) sandbox_of(L)->read_outside = 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/// Wraps `library.name` in noting_outside.
static void note_outside(lua_State *L, const char *library, const char *name, lua_Integer fixing) {
    lua_getglobal(L, library);
    lua_getfield(L, -1, name);
    lua_pushinteger(L, fixing);
    lua_pushcclosure(L, noting_outside, 2);
    lua_setfield(L, -2, name);
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
    tide_open_patterns(L);
    lua_pop(L, 1);
    tide_open_bounded_library(L);
    note_outside(L, LUA_OSLIBNAME, "clock", 0);
    note_outside(L, LUA_OSLIBNAME, "time", 1);
    note_outside(L, LUA_OSLIBNAME, "date", 2);
    note_outside(L, LUA_MATHLIBNAME, "random", 0);
    note_outside(L, LUA_MATHLIBNAME, "randomseed", 0);
    return 0;
}

int tide_lua_took_outside(lua_State *L) {
    sandbox *box = sandbox_of(L);
    int read = box->read_outside;
    box->read_outside = 0;
    return read;
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
    box->state = L;
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
    box->unchecked = 0;
    box->spent = 0;
    box->pending = 0;
    box->instructions_left = instruction_budget;
    box->deadline = seconds > 0 ? now_seconds() + seconds : 0;
    box->seconds = seconds;
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, traceback_handler);
    lua_insert(L, base);
    if (instruction_budget > 0 || seconds > 0 || box->exact) lua_sethook(L, limit_hook, LUA_MASKCOUNT, box->exact ? 1 : HOOK_EVERY);
    box->enforcing = 1;
    int status = lua_pcall(L, nargs, nresults, base);
    box->enforcing = 0;
    box->spent += box->pending;  // the VM's instructions since the last charge: exact when every one is counted
    box->pending = 0;
    box->instructions_left = 0;
    box->deadline = 0;
    lua_sethook(L, NULL, 0, 0);
    lua_remove(L, base);
    if (status != LUA_OK && box->stopped == TIDE_LIMIT_NONE && status == LUA_ERRMEM) box->stopped = TIDE_LIMIT_MEMORY;
    // The allocator refused to grow past the budget or the guard: report the limit, not "not enough memory"
    // (a buffer that fails to grow raises that as a plain runtime error, not LUA_ERRMEM).
    const char *message = status != LUA_OK ? lua_tostring(L, -1) : NULL;
    if (box->stopped != TIDE_LIMIT_NONE && box->stopped != TIDE_LIMIT_MEMORY
        && (status == LUA_ERRMEM || (message && strstr(message, "not enough memory")))) {
        lua_pop(L, 1);
        push_limit_message(L, box);
    }
    return status;
}

tide_limit tide_lua_last_limit(lua_State *L) { return sandbox_of(L)->stopped; }

int64_t tide_lua_last_spent(lua_State *L) { return sandbox_of(L)->spent; }

void tide_lua_count_exactly(lua_State *L, int on) { sandbox_of(L)->exact = on; }

void tide_lua_pop(lua_State *L, int n) { lua_pop(L, n); }
void tide_lua_newtable(lua_State *L) { lua_newtable(L); }
int tide_lua_isfunction(lua_State *L, int index) { return lua_isfunction(L, index); }
int tide_lua_istable(lua_State *L, int index) { return lua_istable(L, index); }
int tide_lua_isnil(lua_State *L, int index) { return lua_isnil(L, index); }
const char *tide_lua_tostring(lua_State *L, int index, size_t *length) { return lua_tolstring(L, index, length); }
int tide_lua_upvalueindex(int i) { return lua_upvalueindex(i); }
int tide_lua_registryindex(void) { return LUA_REGISTRYINDEX; }

/// Frees what a host function returned.
static void free_output(tide_host_output *output) {
    free(output->error);
    free(output->text);
    free(output->tokens);
    free(output->numbers);
    output->error = NULL;
    output->text = NULL;
    output->tokens = NULL;
    output->numbers = NULL;
}

/// Pushes a host function's results (or its error message): text, then tokens, then numbers,
/// each if present. Runs under lua_pcall; frees nothing.
static int push_output(lua_State *L) {
    const tide_host_output *output = (const tide_host_output *)lua_touserdata(L, 1);
    lua_pop(L, 1);
    if (output->error) {
        lua_pushstring(L, output->error);
        return 1;
    }
    int results = 0;
    if (output->has_text) {
        lua_pushlstring(L, output->text ? output->text : "", output->text_length);
        results++;
    }
    if (output->has_tokens) {
        lua_createtable(L, (int)output->token_count, 0);
        for (size_t i = 0; i < output->token_count; i++) {
            lua_pushinteger(L, output->tokens[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        results++;
    }
    if (output->has_numbers) {
        lua_createtable(L, (int)output->number_count, 0);
        for (size_t i = 0; i < output->number_count; i++) {
            lua_pushnumber(L, output->numbers[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        results++;
    }
    return results;
}

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
            if (value < INT32_MIN || value > INT32_MAX) return luaL_error(L, "no token %I in the vocabulary", (LUAI_UACINT)value);
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
    input.state = L;
    // The host reads the whole argument: charge it, so a loop of calls on a long text is stopped.
    tide_sandbox_charge(L, (int64_t)(input.text_length / 64 + input.token_count / 64));
    tide_host_output output = {0};
    function(context, name, &input, &output);
    if (sandbox_of(L)->stopped != TIDE_LIMIT_NONE) {
        free_output(&output);
        tide_sandbox_reraise(L);
    }
    // Pushing can fail for memory: push under a protected call, so the host's buffers are
    // freed whatever happens, then raise its error (or the host's) once they are.
    int top = lua_gettop(L);
    lua_pushcfunction(L, push_output);
    lua_pushlightuserdata(L, &output);
    int status = lua_pcall(L, 1, LUA_MULTRET, 0);
    int failed = output.error != NULL;
    free_output(&output);
    if (status != LUA_OK || failed) return lua_error(L);
    return lua_gettop(L) - top;
}

void tide_lua_push_tide(lua_State *L) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, "tide") == LUA_TTABLE) return;
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "tide");
    lua_pushglobaltable(L);
    lua_pushstring(L, "tide");
    lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

void tide_lua_add_host_function(lua_State *L, const char *name, tide_host_function function, void *context) {
    tide_lua_push_tide(L);
    lua_pushstring(L, name);
    lua_pushlightuserdata(L, (void *)function);
    lua_pushlightuserdata(L, context);
    lua_pushstring(L, name);
    lua_pushcclosure(L, host_trampoline, 3);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}
