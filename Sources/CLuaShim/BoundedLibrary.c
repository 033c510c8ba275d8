// Library functions whose stock versions can loop in C for seconds (the instruction hook only
// fires between VM instructions): each version here does the same work in pieces and charges
// every piece to the running call's budget (Sandbox.h), with the results and error messages of
// stock Lua 5.4. Where the stock function can do a piece of the work, it is called for each
// piece (kept as the wrapper's first upvalue); otherwise the loop is written here.
#include "Sandbox.h"

#include <ctype.h>
#include <lauxlib.h>
#include <limits.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

enum {
    BYTES_PER_UNIT = 64,  // copying this many bytes counts as one instruction
    /// Quoting (`%q`) costs about as much per two bytes as a VM instruction (with what it allocates).
    QUOTED_BYTES_PER_UNIT = 2,
    /// os.date's conversions (two bytes, a call to strftime) cost about sixteen units each.
    DATE_UNITS_PER_BYTE = 8,
    PIECE = 64 << 10,  // bytes handled between two charges
    ITEMS = 1024,  // elements, arguments or comparisons handled between two charges
    MAX_UTF8 = 0x7FFFFFFF,
};

static void charge_bytes(lua_State *L, size_t bytes) { tide_sandbox_charge(L, (int64_t)(bytes / BYTES_PER_UNIT) + 1); }

/// The stock function this one wraps.
static lua_CFunction stock(lua_State *L) { return lua_tocfunction(L, lua_upvalueindex(1)); }

/// Pushes the stock function, to call it on one piece.
static void push_stock(lua_State *L) { lua_pushvalue(L, lua_upvalueindex(1)); }

// MARK: string

static int bounded_rep(lua_State *L) {
    size_t length, separator_length;
    const char *s = luaL_checklstring(L, 1, &length);
    lua_Integer count = luaL_checkinteger(L, 2);
    const char *separator = luaL_optlstring(L, 3, "", &separator_length);
    if (count <= 0 || length + separator_length == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    if (length + separator_length < length || length + separator_length > (size_t)INT_MAX / (size_t)count) {
        return luaL_error(L, "resulting string too large");
    }
    size_t total = (size_t)count * length + (size_t)(count - 1) * separator_length;
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, total);
    size_t uncharged = 0;
    for (lua_Integer i = 0; i < count; i++) {
        if (i > 0) {
            memcpy(out, separator, separator_length);
            out += separator_length;
        }
        memcpy(out, s, length);
        out += length;
        uncharged += length + separator_length + 8;  // a copy costs something even when tiny
        if (uncharged >= PIECE) {
            charge_bytes(L, uncharged);
            uncharged = 0;
        }
    }
    luaL_pushresultsize(&b, total);
    return 1;
}

/// string.upper, lower and reverse: one output byte per input byte.
static int map_bytes(lua_State *L, int reversed, int (*transform)(int)) {
    size_t length;
    const char *s = luaL_checklstring(L, 1, &length);
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, length);
    for (size_t i = 0; i < length; i++) {
        int c = (unsigned char)s[reversed ? length - 1 - i : i];
        out[i] = (char)(transform ? transform(c) : c);
        if (i % PIECE == PIECE - 1) charge_bytes(L, PIECE);
    }
    luaL_pushresultsize(&b, length);
    return 1;
}

static int bounded_upper(lua_State *L) { return map_bytes(L, 0, toupper); }
static int bounded_lower(lua_State *L) { return map_bytes(L, 0, tolower); }
static int bounded_reverse(lua_State *L) { return map_bytes(L, 1, NULL); }

/// string.byte pushes up to a million values (the stack's limit): charged as it goes.
static int bounded_byte(lua_State *L) {
    size_t length;
    const char *s = luaL_checklstring(L, 1, &length);
    lua_Integer given = luaL_optinteger(L, 2, 1);
    size_t first = given > 0 ? (size_t)given : (given == 0 || given < -(lua_Integer)length) ? 1 : length + (size_t)given + 1;
    lua_Integer given_last = luaL_optinteger(L, 3, given);
    size_t last = given_last > (lua_Integer)length ? length
        : given_last >= 0 ? (size_t)given_last
        : given_last < -(lua_Integer)length ? 0 : length + (size_t)given_last + 1;
    if (first > last) return 0;
    if (last - first >= (size_t)INT_MAX) return luaL_error(L, "string slice too long");
    int count = (int)(last - first) + 1;
    luaL_checkstack(L, count, "string slice too long");
    for (int i = 0; i < count; i++) {
        lua_pushinteger(L, (unsigned char)s[first + (size_t)i - 1]);
        if (i % ITEMS == ITEMS - 1) tide_sandbox_charge(L, ITEMS);
    }
    return count;
}

/// Where the conversion whose text starts at `p` (just after its '%') ends, as string.format
/// reads it: flags, width and precision, then one character.
static const char *conversion_end(const char *p, const char *end) {
    while (p < end && *p != '\0' && strchr("-+ #0123456789.", *p)) p++;
    return p < end ? p + 1 : end;
}

static size_t string_bytes(lua_State *L, int first, int last) {
    size_t total = 0;
    for (int i = first; i <= last; i++) {
        if (lua_type(L, i) == LUA_TSTRING) total += lua_rawlen(L, i);
    }
    return total;
}

/// Re-raises an error from formatting one piece as string.format itself would have raised
/// it: argument numbers counted in the whole call, and the caller's position.
static int piece_failed(lua_State *L, int argument_offset) {
    tide_sandbox_reraise(L);
    const char *message = lua_tostring(L, -1);
    if (message == NULL) return lua_error(L);
    int argument = 0, consumed = 0;
    if (sscanf(message, "bad argument #%d to '?' (%n", &argument, &consumed) == 1 && consumed > 0) {
        lua_pushlstring(L, message + consumed, strlen(message) - (size_t)consumed - 1);
        return luaL_argerror(L, argument + argument_offset, lua_tostring(L, -1));
    }
    static const char *const own[] = {"invalid conversion", "invalid format", "specifier '%q'", "'__tostring' must return", NULL};
    for (const char *const *prefix = own; *prefix; prefix++) {
        if (strncmp(message, *prefix, strlen(*prefix)) == 0) return luaL_error(L, "%s", message);
    }
    return lua_error(L);
}

/// Formats `text` (a run of the format string) with `count` arguments from `first` on (those
/// up to `last` exist), appending to `b`.
static void format_piece(lua_State *L, luaL_Buffer *b, const char *text, size_t length, int first, int count, int last) {
    if (count > last - first + 1) count = last - first + 1 > 0 ? last - first + 1 : 0;
    luaL_checkstack(L, count + 2, "too many arguments to format");
    push_stock(L);
    lua_pushlstring(L, text, length);
    for (int i = 0; i < count; i++) lua_pushvalue(L, first + i);
    if (lua_pcall(L, count + 1, 1, 0) != LUA_OK) piece_failed(L, first - 2);
    luaL_addvalue(b);
    charge_bytes(L, length + ITEMS);
}

/// `%q` of a long string, quoted a piece at a time by stock string.format and joined.
static void add_quoted(lua_State *L, luaL_Buffer *b, int argument) {
    size_t length;
    const char *s = lua_tolstring(L, argument, &length);
    luaL_addchar(b, '"');
    for (size_t at = 0; at < length;) {
        size_t cut = length - at > PIECE ? at + PIECE : length;
        // A control character's escape depends on whether a digit follows: keep them together.
        if (cut < length && iscntrl((unsigned char)s[cut - 1]) && isdigit((unsigned char)s[cut])) cut++;
        push_stock(L);
        lua_pushliteral(L, "%q");
        lua_pushlstring(L, s + at, cut - at);
        lua_call(L, 2, 1);
        size_t quoted_length;
        const char *quoted = lua_tolstring(L, -1, &quoted_length);
        lua_pushlstring(L, quoted + 1, quoted_length - 2);
        lua_remove(L, -2);
        luaL_addvalue(b);
        tide_sandbox_charge(L, (int64_t)((cut - at) / QUOTED_BYTES_PER_UNIT) + 1);
        at = cut;
    }
    luaL_addchar(b, '"');
}

/// string.format in pieces of at most PIECE bytes of format and ITEMS conversions, each
/// formatted by the stock function; `%q` of a long string is quoted in pieces too.
static int bounded_format(lua_State *L) {
    size_t length;
    const char *format = luaL_checklstring(L, 1, &length);
    int arguments = lua_gettop(L) - 1;
    if (length <= PIECE && arguments <= ITEMS && string_bytes(L, 2, arguments + 1) <= 4 * PIECE) {
        // Copying is charged as memory by the allocator; quoting costs more per byte.
        if (memchr(format, 'q', length)) tide_sandbox_charge(L, (int64_t)(string_bytes(L, 2, arguments + 1) / QUOTED_BYTES_PER_UNIT));
        return stock(L)(L);
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    const char *end = format + length, *piece = format, *p = format;
    int piece_argument = 2, next_argument = 2, last_argument = arguments + 1;
    for (;;) {
        const char *percent = p < end ? memchr(p, '%', (size_t)(end - p)) : NULL;
        if (percent == NULL) percent = end;
        if (percent - piece >= PIECE || next_argument - piece_argument >= ITEMS || percent == end) {
            const char *cut = percent;  // at a conversion, or in literal text past the last one
            if (percent - piece >= PIECE) cut = p > piece + PIECE ? p : piece + PIECE;
            format_piece(L, &b, piece, (size_t)(cut - piece), piece_argument, next_argument - piece_argument, last_argument);
            if (cut == end) break;
            piece = p = cut;
            piece_argument = next_argument;
            continue;
        }
        if (percent + 1 < end && percent[1] == '%') {
            p = percent + 2;
            continue;
        }
        const char *conversion = conversion_end(percent + 1, end);
        if (conversion - percent == 2 && percent[1] == 'q' && next_argument <= last_argument
            && lua_type(L, next_argument) == LUA_TSTRING && lua_rawlen(L, next_argument) > PIECE) {
            format_piece(L, &b, piece, (size_t)(percent - piece), piece_argument, next_argument - piece_argument, last_argument);
            add_quoted(L, &b, next_argument);
            piece = p = conversion;
            piece_argument = ++next_argument;
            continue;
        }
        next_argument++;
        p = conversion;
    }
    luaL_pushresult(&b);
    return 1;
}

/// os.date: each conversion of its format is a call to strftime, so a call is charged its
/// format up front (DATE_UNITS_PER_BYTE units a byte).
static int charged_date(lua_State *L) {
    size_t length = 0;
    if (lua_type(L, 1) == LUA_TSTRING) lua_tolstring(L, 1, &length);
    tide_sandbox_charge(L, (int64_t)length * DATE_UNITS_PER_BYTE + 1);
    return stock(L)(L);
}

/// string.pack: its format carries state from item to item (endianness, alignment relative to
/// the whole result), so it is not split; each call is charged its format and the strings it
/// copies up front, and the deadline is checked before it runs.
static int charged_pack(lua_State *L) {
    charge_bytes(L, string_bytes(L, 1, lua_gettop(L)));
    return stock(L)(L);
}

/// string.unpack: charged its format, not the data it reads from (a loop reading a long buffer
/// a few bytes at a time does work in proportion to what it reads, as in stock Lua).
static int charged_unpack(lua_State *L) {
    charge_bytes(L, string_bytes(L, 1, 1));
    return stock(L)(L);
}

// MARK: table

enum { TABLE_READ = 1, TABLE_WRITE = 2, TABLE_LENGTH = 4 };

static int has_metafield(lua_State *L, const char *name, int depth) {
    lua_pushstring(L, name);
    return lua_rawget(L, -depth) != LUA_TNIL;
}

/// Accepts a table, or a value whose metatable provides what the function needs, as the
/// table library does.
static void check_table(lua_State *L, int argument, int needs) {
    if (lua_type(L, argument) == LUA_TTABLE) return;
    int pushed = 1;
    if (lua_getmetatable(L, argument) && (!(needs & TABLE_READ) || has_metafield(L, "__index", ++pushed))
        && (!(needs & TABLE_WRITE) || has_metafield(L, "__newindex", ++pushed))
        && (!(needs & TABLE_LENGTH) || has_metafield(L, "__len", ++pushed))) {
        lua_pop(L, pushed);
        return;
    }
    luaL_checktype(L, argument, LUA_TTABLE);
}

static lua_Integer checked_length(lua_State *L, int argument, int needs) {
    check_table(L, argument, needs | TABLE_LENGTH);
    return luaL_len(L, argument);
}

static void add_item(lua_State *L, luaL_Buffer *b, lua_Integer i) {
    lua_geti(L, 1, i);
    if (!lua_isstring(L, -1)) {
        luaL_error(L, "invalid value (%s) at index %I in table for 'concat'", luaL_typename(L, -1), (LUAI_UACINT)i);
    }
    luaL_addvalue(b);
}

static int bounded_concat(lua_State *L) {
    lua_Integer last = checked_length(L, 1, TABLE_READ);
    size_t separator_length;
    const char *separator = luaL_optlstring(L, 2, "", &separator_length);
    lua_Integer i = luaL_optinteger(L, 3, 1);
    last = luaL_optinteger(L, 4, last);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (lua_Integer done = 1; i < last; i++, done++) {
        add_item(L, &b, i);
        luaL_addlstring(&b, separator, separator_length);
        if (done % ITEMS == 0) charge_bytes(L, ITEMS * (BYTES_PER_UNIT + separator_length));
    }
    if (i == last) add_item(L, &b, i);
    luaL_pushresult(&b);
    return 1;
}

/// Copies t1[first..last] to t2[to..], each element charged, in the order table.move uses.
static void move_items(lua_State *L, int source, lua_Integer first, lua_Integer last, int target, lua_Integer to, int forward) {
    lua_Integer count = last - first + 1;
    for (lua_Integer done = 0; done < count; done++) {
        lua_Integer i = forward ? done : count - 1 - done;
        lua_geti(L, source, first + i);
        lua_seti(L, target, to + i);
        if (done % ITEMS == ITEMS - 1) tide_sandbox_charge(L, ITEMS);
    }
}

static int bounded_move(lua_State *L) {
    lua_Integer first = luaL_checkinteger(L, 2);
    lua_Integer last = luaL_checkinteger(L, 3);
    lua_Integer to = luaL_checkinteger(L, 4);
    int target = !lua_isnoneornil(L, 5) ? 5 : 1;
    check_table(L, 1, TABLE_READ);
    check_table(L, target, TABLE_WRITE);
    if (last >= first) {
        luaL_argcheck(L, first > 0 || last < LUA_MAXINTEGER + first, 3, "too many elements to move");
        luaL_argcheck(L, to <= LUA_MAXINTEGER - (last - first + 1) + 1, 4, "destination wrap around");
        int forward = to > last || to <= first || (target != 1 && !lua_compare(L, 1, target, LUA_OPEQ));
        move_items(L, 1, first, last, target, to, forward);
    }
    lua_pushvalue(L, target);
    return 1;
}

static int bounded_insert(lua_State *L) {
    lua_Integer end = luaL_intop(+, checked_length(L, 1, TABLE_READ | TABLE_WRITE), 1);  // the first empty slot
    lua_Integer position = end;
    switch (lua_gettop(L)) {
    case 2: break;
    case 3:
        position = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)position - 1u < (lua_Unsigned)end, 2, "position out of bounds");
        if (position < end) move_items(L, 1, position, end - 1, 1, position + 1, 0);
        break;
    default: return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, position);
    return 0;
}

static int bounded_remove(lua_State *L) {
    lua_Integer size = checked_length(L, 1, TABLE_READ | TABLE_WRITE);
    lua_Integer position = luaL_optinteger(L, 2, size);
    if (position != size) {  // Lua 5.4.4 names argument 1 here
        luaL_argcheck(L, (lua_Unsigned)position - 1u <= (lua_Unsigned)size, 1, "position out of bounds");
    }
    lua_geti(L, 1, position);
    if (position < size) {
        move_items(L, 1, position + 1, size, 1, position, 1);
        position = size;
    }
    lua_pushnil(L);
    lua_seti(L, 1, position);
    return 1;
}

/// The order table.sort uses, with every comparison charged: the plugin's comparator (the
/// upvalue) or `<`. The sort loop itself runs in C, between comparisons.
static int charged_less(lua_State *L) {
    tide_sandbox_charge(L, 1);
    if (lua_isnil(L, lua_upvalueindex(1))) {
        lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
        return 1;
    }
    lua_settop(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 2, 1);
    return 1;
}

/// table.sort with its comparisons charged; stock sort runs in this call, so its errors read
/// as they always do. A comparator of the wrong type is left for it to refuse.
static int bounded_sort(lua_State *L) {
    int comparator = lua_type(L, 2);
    if (comparator == LUA_TNONE || comparator == LUA_TNIL || comparator == LUA_TFUNCTION) {
        lua_settop(L, 2);
        lua_pushcclosure(L, charged_less, 1);
    }
    return stock(L)(L);
}

// MARK: utf8

static lua_Integer utf8_position(lua_Integer position, size_t length) {
    if (position >= 0) return position;
    if (0u - (size_t)position > length) return 0;
    return (lua_Integer)length + position + 1;
}

static int is_continuation(const char *s) { return (*s & 0xC0) == 0x80; }

/// utf8.char: arguments checked here, then encoded by stock utf8.char ITEMS at a time.
static int bounded_utf8_char(lua_State *L) {
    int count = lua_gettop(L);
    for (int i = 1; i <= count; i++) {
        lua_Unsigned code = (lua_Unsigned)luaL_checkinteger(L, i);
        luaL_argcheck(L, code <= MAX_UTF8, i, "value out of range");
        if (i % ITEMS == 0) tide_sandbox_charge(L, ITEMS);
    }
    if (count <= ITEMS) return stock(L)(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int first = 1; first <= count; first += ITEMS) {
        int n = count - first + 1 < ITEMS ? count - first + 1 : ITEMS;
        luaL_checkstack(L, n + 1, NULL);
        push_stock(L);
        for (int i = 0; i < n; i++) lua_pushvalue(L, first + i);
        lua_call(L, n, 1);
        luaL_addvalue(&b);
        tide_sandbox_charge(L, ITEMS);
    }
    luaL_pushresult(&b);
    return 1;
}

/// utf8.len, counted by stock utf8.len a piece at a time. A piece ends before a byte that is
/// not a continuation byte (or six continuation bytes on, where a decoder must have failed), so
/// every character starts in the piece that decodes it.
static int bounded_utf8_len(lua_State *L) {
    size_t length;
    const char *s = luaL_checklstring(L, 1, &length);
    lua_Integer first = utf8_position(luaL_optinteger(L, 2, 1), length);
    lua_Integer last = utf8_position(luaL_optinteger(L, 3, -1), length);
    luaL_argcheck(L, 1 <= first && first - 1 <= (lua_Integer)length, 2, "initial position out of bounds");
    luaL_argcheck(L, last - 1 < (lua_Integer)length, 3, "final position out of bounds");
    if (last - first < PIECE) return stock(L)(L);
    int lax = lua_toboolean(L, 4);
    lua_Integer count = 0;
    while (first <= last) {
        lua_Integer cut = last - first < PIECE ? last : first + PIECE - 1;
        for (int k = 0; k < 6 && cut < last && is_continuation(s + cut); k++) cut++;
        push_stock(L);
        lua_pushvalue(L, 1);
        lua_pushinteger(L, first);
        lua_pushinteger(L, cut);
        lua_pushboolean(L, lax);
        lua_call(L, 4, 2);
        if (lua_isnil(L, -2)) return 2;  // fail and the position of the invalid byte
        count += lua_tointeger(L, -2);
        lua_pop(L, 2);
        charge_bytes(L, (size_t)(cut - first + 1) * 4);
        first = cut + 1;
    }
    lua_pushinteger(L, count);
    return 1;
}

/// utf8.offset, walked by stock utf8.offset PIECE characters at a time.
static int bounded_utf8_offset(lua_State *L) {
    size_t length;
    const char *s = luaL_checklstring(L, 1, &length);
    lua_Integer n = luaL_checkinteger(L, 2);
    lua_Integer position = utf8_position(luaL_optinteger(L, 3, n >= 0 ? 1 : (lua_Integer)length + 1), length);
    luaL_argcheck(L, 1 <= position && position - 1 <= (lua_Integer)length, 3, "position out of bounds");
    if (n > -PIECE && n < PIECE) return stock(L)(L);
    if (is_continuation(s + position - 1)) return luaL_error(L, "initial position is a continuation byte");
    for (;;) {
        // Walking k characters and then m more from there is walking k + m - 1 (forward) or k + m (back).
        lua_Integer step = n >= PIECE ? PIECE : n <= -PIECE ? -PIECE : n;
        push_stock(L);
        lua_pushvalue(L, 1);
        lua_pushinteger(L, step);
        lua_pushinteger(L, position);
        lua_call(L, 3, 1);
        if (step == n || lua_isnil(L, -1)) return 1;
        position = lua_tointeger(L, -1);
        lua_pop(L, 1);
        n = n > 0 ? n - PIECE + 1 : n + PIECE;
        charge_bytes(L, 4 * PIECE);
    }
}

/// Replaces `name` in the library table on top of the stack with `bounded`, which gets the
/// stock function as its upvalue.
static void replace(lua_State *L, const char *name, lua_CFunction bounded) {
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, bounded, 1);
    lua_setfield(L, -2, name);
}

void tide_open_bounded_library(lua_State *L) {
    lua_getglobal(L, LUA_STRLIBNAME);
    replace(L, "rep", bounded_rep);
    replace(L, "upper", bounded_upper);
    replace(L, "lower", bounded_lower);
    replace(L, "reverse", bounded_reverse);
    replace(L, "byte", bounded_byte);
    replace(L, "format", bounded_format);
    replace(L, "pack", charged_pack);
    replace(L, "unpack", charged_unpack);
    lua_pop(L, 1);
    lua_getglobal(L, LUA_TABLIBNAME);
    replace(L, "concat", bounded_concat);
    replace(L, "move", bounded_move);
    replace(L, "insert", bounded_insert);
    replace(L, "remove", bounded_remove);
    replace(L, "sort", bounded_sort);
    lua_pop(L, 1);
    lua_getglobal(L, LUA_OSLIBNAME);
    replace(L, "date", charged_date);
    lua_pop(L, 1);
    lua_getglobal(L, LUA_UTF8LIBNAME);
    replace(L, "char", bounded_utf8_char);
    replace(L, "len", bounded_utf8_len);
    replace(L, "offset", bounded_utf8_offset);
    lua_pop(L, 1);
}
