// Lua 5.4 patterns (reference manual §6.4.1) for the sandbox: string.find, match, gmatch and
// gsub with the results and error messages of stock Lua, except that the matcher charges every
// step it takes to the running call's budget. Stock Lua's matcher runs in C, where the
// instruction hook never fires, so a pattern that backtracks exponentially would run for
// minutes; this one is stopped like any loop.
#include "Sandbox.h"

#include <ctype.h>
#include <lauxlib.h>
#include <string.h>

enum {
    MAX_CAPTURES = 32,  // LUA_MAXCAPTURES
    MAX_NESTING = 200,  // nested matcher calls before "pattern too complex", as stock Lua
    STEPS_PER_CHARGE = 256,
};

/// A capture's length while it is still open, and for a position capture `()`.
enum { CAPTURE_OPEN = -1, CAPTURE_POSITION = -2 };

typedef struct {
    lua_State *L;
    const char *subject;
    const char *subject_end;
    const char *pattern_end;
    int nesting_left;
    int level;  // captures opened so far
    int64_t steps;  // not yet charged
    struct {
        const char *start;
        ptrdiff_t length;
    } capture[MAX_CAPTURES];
} matcher;

static void prepare(matcher *m, lua_State *L, const char *s, size_t length, const char *p, size_t pattern_length) {
    m->L = L;
    m->subject = s;
    m->subject_end = s + length;
    m->pattern_end = p + pattern_length;
    m->nesting_left = MAX_NESTING;
    m->level = 0;
    m->steps = 0;
}

static void spend(matcher *m, int64_t steps) {
    m->steps += steps;
    if (m->steps >= STEPS_PER_CHARGE) {
        int64_t due = m->steps;
        m->steps = 0;
        tide_sandbox_charge(m->L, due);
    }
}

/// The byte at `p` of the pattern, or 0 past its end (as the NUL after a Lua string).
static int pattern_byte(const matcher *m, const char *p) { return p < m->pattern_end ? (unsigned char)*p : 0; }

/// Whether `c` is in the class `%x` named by `name` (an upper-case name is the complement);
/// any other character after `%` stands for itself.
static int in_class(int c, int name) {
    int found;
    switch (tolower(name)) {
    case 'a': found = isalpha(c); break;
    case 'c': found = iscntrl(c); break;
    case 'd': found = isdigit(c); break;
    case 'g': found = isgraph(c); break;
    case 'l': found = islower(c); break;
    case 'p': found = ispunct(c); break;
    case 's': found = isspace(c); break;
    case 'u': found = isupper(c); break;
    case 'w': found = isalnum(c); break;
    case 'x': found = isxdigit(c); break;
    case 'z': found = c == 0; break;  // deprecated in the manual, still accepted by Lua 5.4
    default: return name == c;
    }
    return isupper(name) ? !found : found;
}

/// Whether `c` is in the set `[...]` that starts at `p` and whose closing `]` is at `close`.
static int in_set(int c, const char *p, const char *close) {
    int wanted = 1;
    p++;
    if (*p == '^') {
        wanted = 0;
        p++;
    }
    for (; p < close; p++) {
        if (*p == '%') {
            p++;
            if (in_class(c, (unsigned char)*p)) return wanted;
        } else if (p + 2 < close && p[1] == '-') {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2]) return wanted;
            p += 2;
        } else if ((unsigned char)*p == c) {
            return wanted;
        }
    }
    return !wanted;
}

/// Where the single-character class at `p` (`x`, `.`, `%x` or a set) ends.
static const char *class_end(matcher *m, const char *p) {
    const char *start = p;
    int c = (unsigned char)*p++;
    if (c == '%') {
        if (p >= m->pattern_end) luaL_error(m->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (c == '[') {
        if (pattern_byte(m, p) == '^') p++;
        do {  // the first character of a set is never its end, even a ']'
            if (p >= m->pattern_end) luaL_error(m->L, "malformed pattern (missing ']')");
            c = (unsigned char)*p++;
            if (c == '%' && p < m->pattern_end) p++;
        } while (pattern_byte(m, p) != ']');
        spend(m, (int64_t)((p - start) / 64));  // a set is scanned again at every use
        return p + 1;
    }
    return p;
}

/// Whether the subject byte at `s` matches the class from `p` to `end`.
static int matches_class(matcher *m, const char *s, const char *p, const char *end) {
    if (s >= m->subject_end) return 0;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.': return 1;
    case '%': return in_class(c, (unsigned char)p[1]);
    case '[':
        spend(m, (int64_t)((end - p) / 64));  // a long set costs its length at every character
        return in_set(c, p, end - 1);
    default: return (unsigned char)*p == c;
    }
}

static const char *match_here(matcher *m, const char *s, const char *p);

/// `%bxy` at `s`; `p` points at x.
static const char *match_balanced(matcher *m, const char *s, const char *p) {
    if (p >= m->pattern_end - 1) luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= m->subject_end || *s != p[0]) return NULL;
    int depth = 1;
    while (++s < m->subject_end) {
        spend(m, 1);
        if (*s == p[1]) {
            if (--depth == 0) return s + 1;
        } else if (*s == p[0]) {
            depth++;
        }
    }
    return NULL;
}

/// The index of the capture `%digit` names, which must be closed.
static int closed_capture(matcher *m, int digit) {
    int index = digit - '1';
    if (index < 0 || index >= m->level || m->capture[index].length == CAPTURE_OPEN) {
        return luaL_error(m->L, "invalid capture index %%%d", index + 1);
    }
    return index;
}

/// `%1`…`%9` at `s`: the same text as that capture (a position capture never matches).
static const char *match_backreference(matcher *m, const char *s, int digit) {
    int index = closed_capture(m, digit);
    size_t length = (size_t)m->capture[index].length;
    if ((size_t)(m->subject_end - s) < length) return NULL;
    spend(m, (int64_t)(length / 64));
    return memcmp(m->capture[index].start, s, length) == 0 ? s + length : NULL;
}

static const char *open_capture(matcher *m, const char *s, const char *p, ptrdiff_t kind) {
    if (m->level >= MAX_CAPTURES) luaL_error(m->L, "too many captures");
    m->capture[m->level].start = s;
    m->capture[m->level].length = kind;
    m->level++;
    const char *end = match_here(m, s, p);
    if (end == NULL) m->level--;
    return end;
}

static const char *close_capture(matcher *m, const char *s, const char *p) {
    int index = m->level - 1;
    while (index >= 0 && m->capture[index].length != CAPTURE_OPEN) index--;
    if (index < 0) luaL_error(m->L, "invalid pattern capture");
    m->capture[index].length = s - m->capture[index].start;
    const char *end = match_here(m, s, p);
    if (end == NULL) m->capture[index].length = CAPTURE_OPEN;
    return end;
}

/// `x*` (or `x+` after its first match): as many as possible, giving back one at a time.
static const char *match_greedy(matcher *m, const char *s, const char *p, const char *class_end) {
    ptrdiff_t count = 0;
    while (matches_class(m, s + count, p, class_end)) {
        count++;
        spend(m, 1);
    }
    for (; count >= 0; count--) {
        const char *end = match_here(m, s + count, class_end + 1);
        if (end) return end;
    }
    return NULL;
}

/// `x-`: as few as possible, taking one more at a time.
static const char *match_lazy(matcher *m, const char *s, const char *p, const char *class_end) {
    for (;;) {
        const char *end = match_here(m, s, class_end + 1);
        if (end) return end;
        if (!matches_class(m, s, p, class_end)) return NULL;
        s++;
    }
}

/// Matches the pattern from `p` against the subject from `s`; returns where the match ends,
/// or NULL. Items that need no backtracking loop here; the others recurse, and the nesting is
/// bounded as in stock Lua.
static const char *match_here(matcher *m, const char *s, const char *p) {
    if (m->nesting_left-- == 0) luaL_error(m->L, "pattern too complex");
    spend(m, 1);
    while (s != NULL && p != m->pattern_end) {
        spend(m, 1);  // each item, so a long literal run costs its length
        int next = pattern_byte(m, p + 1);
        if (*p == '(') {
            s = next == ')' ? open_capture(m, s, p + 2, CAPTURE_POSITION) : open_capture(m, s, p + 1, CAPTURE_OPEN);
            break;
        }
        if (*p == ')') {
            s = close_capture(m, s, p + 1);
            break;
        }
        if (*p == '$' && p + 1 == m->pattern_end) {
            if (s != m->subject_end) s = NULL;
            break;
        }
        if (*p == '%' && next == 'b') {
            s = match_balanced(m, s, p + 2);
            p += 4;
            continue;
        }
        if (*p == '%' && next == 'f') {
            p += 2;
            if (pattern_byte(m, p) != '[') luaL_error(m->L, "missing '[' after '%%f' in pattern");
            const char *end = class_end(m, p);
            int before = s == m->subject ? 0 : (unsigned char)s[-1];
            int here = s < m->subject_end ? (unsigned char)*s : 0;
            if (in_set(before, p, end - 1) || !in_set(here, p, end - 1)) s = NULL;
            p = end;
            continue;
        }
        if (*p == '%' && isdigit(next)) {
            s = match_backreference(m, s, next);
            p += 2;
            continue;
        }
        const char *end = class_end(m, p);
        int quantifier = pattern_byte(m, end);
        if (!matches_class(m, s, p, end)) {
            if (quantifier != '*' && quantifier != '?' && quantifier != '-') s = NULL;
            p = end + 1;  // an optional item that is absent
            continue;
        }
        if (quantifier == '?') {
            const char *taken = match_here(m, s + 1, end + 1);
            if (taken) {
                s = taken;
                break;
            }
            p = end + 1;
            continue;
        }
        if (quantifier == '+' || quantifier == '*') {
            s = match_greedy(m, quantifier == '+' ? s + 1 : s, p, end);
            break;
        }
        if (quantifier == '-') {
            s = match_lazy(m, s, p, end);
            break;
        }
        s++;
        p = end;
    }
    m->nesting_left++;
    return s;
}

/// Pushes capture `index` (the whole match from `s` to `e` when the pattern has none).
static void push_capture(matcher *m, int index, const char *s, const char *e) {
    if (index >= m->level) {
        if (index != 0) luaL_error(m->L, "invalid capture index %%%d", index + 1);
        lua_pushlstring(m->L, s, (size_t)(e - s));
        return;
    }
    ptrdiff_t length = m->capture[index].length;
    if (length == CAPTURE_OPEN) luaL_error(m->L, "unfinished capture");
    if (length == CAPTURE_POSITION) {
        lua_pushinteger(m->L, m->capture[index].start - m->subject + 1);
    } else {
        lua_pushlstring(m->L, m->capture[index].start, (size_t)length);
    }
}

/// Pushes every capture (or the whole match, if `s` is given and there are none); returns how many.
static int push_captures(matcher *m, const char *s, const char *e) {
    int count = (m->level == 0 && s) ? 1 : m->level;
    luaL_checkstack(m->L, count, "too many captures");
    for (int i = 0; i < count; i++) push_capture(m, i, s, e);
    return count;
}

/// A 1-based start position (negative: from the end) as an offset; may be past the end.
static size_t start_offset(lua_Integer position, size_t length) {
    if (position > 0) return (size_t)position - 1;
    if (position == 0 || position < -(lua_Integer)length) return 0;
    return length + (size_t)position;
}

static int has_specials(const char *p, size_t length) {
    for (size_t i = 0; i < length; i++) {
        if (p[i] != '\0' && strchr("^$*+?.([%-", p[i])) return 1;
    }
    return 0;
}

/// Where `needle` first occurs in `haystack`, or NULL; charged like the matcher.
static const char *find_plain(lua_State *L, const char *haystack, size_t length, const char *needle, size_t needle_length) {
    if (needle_length == 0) return haystack;
    if (needle_length > length) return NULL;
    const char *last = haystack + (length - needle_length);
    int64_t work = 0;
    for (const char *at = haystack; at <= last; at++) {
        const char *hit = memchr(at, *needle, (size_t)(last - at) + 1);
        if (hit == NULL) return NULL;
        work += (hit - at) / 64 + (int64_t)(needle_length / 64) + 1;
        if (work >= STEPS_PER_CHARGE) {
            tide_sandbox_charge(L, work);
            work = 0;
        }
        if (memcmp(hit + 1, needle + 1, needle_length - 1) == 0) return hit;
        at = hit;
    }
    return NULL;
}

static int find_or_match(lua_State *L, int find) {
    size_t length, pattern_length;
    const char *s = luaL_checklstring(L, 1, &length);
    const char *p = luaL_checklstring(L, 2, &pattern_length);
    size_t init = start_offset(luaL_optinteger(L, 3, 1), length);
    if (init > length) {
        luaL_pushfail(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || !has_specials(p, pattern_length))) {
        const char *hit = find_plain(L, s + init, length - init, p, pattern_length);
        if (hit) {
            lua_pushinteger(L, hit - s + 1);
            lua_pushinteger(L, (lua_Integer)(hit - s + pattern_length));
            return 2;
        }
    } else {
        int anchored = *p == '^';
        if (anchored) {
            p++;
            pattern_length--;
        }
        matcher m;
        prepare(&m, L, s, length, p, pattern_length);
        const char *at = s + init;
        do {
            m.level = 0;
            const char *end = match_here(&m, at, p);
            if (end) {
                if (!find) return push_captures(&m, at, end);
                lua_pushinteger(L, at - s + 1);
                lua_pushinteger(L, end - s);
                return push_captures(&m, NULL, NULL) + 2;
            }
        } while (at++ < m.subject_end && !anchored);
    }
    luaL_pushfail(L);
    return 1;
}

static int sandbox_find(lua_State *L) { return find_or_match(L, 1); }
static int sandbox_match(lua_State *L) { return find_or_match(L, 0); }

/// The state of a gmatch iterator; its subject and pattern are the closure's first upvalues.
typedef struct {
    matcher m;
    const char *pattern;
    const char *next;
    const char *last_match;
} iteration;

static int gmatch_next(lua_State *L) {
    iteration *it = (iteration *)lua_touserdata(L, lua_upvalueindex(3));
    it->m.L = L;
    for (const char *at = it->next; at <= it->m.subject_end; at++) {
        it->m.level = 0;
        it->m.nesting_left = MAX_NESTING;  // a caught error may have left it lowered
        const char *end = match_here(&it->m, at, it->pattern);
        if (end != NULL && end != it->last_match) {
            it->next = it->last_match = end;
            return push_captures(&it->m, at, end);
        }
    }
    return 0;
}

static int sandbox_gmatch(lua_State *L) {
    size_t length, pattern_length;
    const char *s = luaL_checklstring(L, 1, &length);
    const char *p = luaL_checklstring(L, 2, &pattern_length);
    size_t init = start_offset(luaL_optinteger(L, 3, 1), length);
    lua_settop(L, 2);  // the closure keeps the strings alive
    iteration *it = (iteration *)lua_newuserdatauv(L, sizeof(iteration), 0);
    if (init > length) init = length + 1;
    prepare(&it->m, L, s, length, p, pattern_length);
    it->pattern = p;
    it->next = s + init;
    it->last_match = NULL;
    lua_pushcclosure(L, gmatch_next, 3);
    return 1;
}

/// Appends a gsub replacement string, with `%0`…`%9` and `%%` expanded, to `b`.
static void add_expanded(matcher *m, luaL_Buffer *b, const char *s, const char *e) {
    size_t length;
    const char *text = lua_tolstring(m->L, 3, &length);
    const char *end = text + length;
    spend(m, (int64_t)(length / 64));
    const char *percent;
    while ((percent = memchr(text, '%', (size_t)(end - text))) != NULL) {
        luaL_addlstring(b, text, (size_t)(percent - text));
        int c = percent + 1 < end ? (unsigned char)percent[1] : 0;
        if (c == '%') {
            luaL_addchar(b, '%');
        } else if (c == '0') {
            luaL_addlstring(b, s, (size_t)(e - s));
        } else if (isdigit(c)) {
            push_capture(m, c - '1', s, e);
            luaL_addvalue(b);  // a position capture is added as its digits
        } else {
            luaL_error(m->L, "invalid use of '%c' in replacement string", '%');
        }
        text = percent + 2;
    }
    luaL_addlstring(b, text, (size_t)(end - text));
}

/// Appends the replacement for the match from `s` to `e` to `b`: from the string, table or
/// function in argument 3; a false or nil result keeps the original text.
static void add_replacement(matcher *m, luaL_Buffer *b, const char *s, const char *e, int kind) {
    lua_State *L = m->L;
    if (kind == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int count = push_captures(m, s, e);
        lua_call(L, count, 1);
    } else if (kind == LUA_TTABLE) {
        push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    } else {
        add_expanded(m, b, s, e);
        return;
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
    } else if (!lua_isstring(L, -1)) {
        luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    } else {
        luaL_addvalue(b);
    }
}

static int sandbox_gsub(lua_State *L) {
    size_t length, pattern_length;
    const char *s = luaL_checklstring(L, 1, &length);
    const char *p = luaL_checklstring(L, 2, &pattern_length);
    int kind = lua_type(L, 3);
    lua_Integer most = luaL_optinteger(L, 4, (lua_Integer)length + 1);
    luaL_argexpected(L, kind == LUA_TNUMBER || kind == LUA_TSTRING || kind == LUA_TFUNCTION || kind == LUA_TTABLE, 3,
                     "string/function/table");
    int anchored = *p == '^';
    if (anchored) {
        p++;
        pattern_length--;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    matcher m;
    prepare(&m, L, s, length, p, pattern_length);
    const char *last_match = NULL;
    lua_Integer count = 0;
    while (count < most) {
        m.level = 0;
        const char *end = match_here(&m, s, p);
        if (end != NULL && end != last_match) {
            count++;
            add_replacement(&m, &b, s, end, kind);
            s = last_match = end;
        } else if (s < m.subject_end) {
            luaL_addchar(&b, *s++);
        } else {
            break;
        }
        if (anchored) break;
    }
    luaL_addlstring(&b, s, (size_t)(m.subject_end - s));
    luaL_pushresult(&b);
    lua_pushinteger(L, count);
    return 2;
}

void tide_open_patterns(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"find", sandbox_find}, {"match", sandbox_match}, {"gmatch", sandbox_gmatch}, {"gsub", sandbox_gsub}, {NULL, NULL},
    };
    luaL_setfuncs(L, functions, 0);
}
