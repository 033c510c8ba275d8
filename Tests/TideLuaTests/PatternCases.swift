/// A Lua chunk that draws random patterns and subjects from a grammar (a fixed seed, its own
/// generator, so every state draws the same cases), calls string.find (with init, and plain),
/// match, gmatch and gsub (string, table and function replacements, with n) on them under
/// pcall, and returns one line per case: subject, pattern and results or error message.
/// `...` is the number of random cases; a few fixed cases that reach the matcher's limits follow.
enum PatternCases {
    static let chunk = #"""
        local count = ...
        local seed = 20261123
        local function rand(n) seed = (seed * 1103515245 + 12345) % 2147483648; return (seed >> 8) % n + 1 end
        local function pick(list) return list[rand(#list)] end
        local classes = {"%a","%d","%s","%w","%p","%x","%u","%l","%c","%g","%A","%D","%S","%W","%P","%X","%U","%L","%C","%G"}
        local literals = {"a","b","c","x","0","1"," ",".","-",",","%%","%.","%(","%)","%[","%-","\0","é","%z"}
        local function set()
          local parts = {"["}
          if rand(3) == 1 then parts[#parts + 1] = "^" end
          for _ = 1, rand(3) do
            local kind = rand(4)
            if kind == 1 then parts[#parts + 1] = pick({"a-c", "0-9", "x-z", "b-a", "--/", "a-"})
            elseif kind == 2 then parts[#parts + 1] = pick(classes)
            elseif kind == 3 then parts[#parts + 1] = pick({"a", "b", "]", "-", "^", "%]", "."})
            else parts[#parts + 1] = pick({"1", "x", " ", "\0"}) end
          end
          parts[#parts + 1] = "]"
          return table.concat(parts)
        end
        local function single()
          local kind = rand(6)
          if kind == 1 then return "." elseif kind == 2 then return pick(classes) elseif kind == 3 then return set() end
          return pick(literals)
        end
        local function item(depth)
          local kind = rand(14)
          if kind <= 7 then return single() .. pick({"", "", "", "*", "+", "-", "?"})
          elseif kind == 8 and depth < 3 then return "(" .. item(depth + 1) .. item(depth + 1) .. ")"
          elseif kind == 9 then return "()"
          elseif kind == 10 then return pick({"%b()", "%bab", "%b[]", "%bxx"})
          elseif kind == 11 then return "%f" .. set()
          elseif kind == 12 then return pick({"%1", "%2", "%0"})
          elseif kind == 13 then return pick({"%f[%w]", "%f[%W]", "%f[^a]"})
          end
          return single()
        end
        local malformed = {"[a", "[", "%", "(", ")", "%b", "%ba", "%f", "%fa", "[%", "(()", "a)", "%9", "[^", "[]", "[^]"}
        local function pattern()
          local parts = {}
          if rand(6) == 1 then parts[1] = "^" end
          for _ = 1, rand(5) - 1 do parts[#parts + 1] = item(0) end
          if rand(6) == 1 then parts[#parts + 1] = "$" end
          if rand(10) == 1 then table.insert(parts, rand(#parts + 1), pick(malformed)) end
          return table.concat(parts)
        end
        local alphabet = {"a","b","c","x","0","1"," ",".","-",",","(",")","[","]","%","\0","\n","é","A","Z"}
        local function subject()
          local parts = {}
          for i = 1, rand(16) - 1 do parts[i] = pick(alphabet) end
          return table.concat(parts)
        end
        local function show(...)
          local parts = {}
          for i = 1, select("#", ...) do
            local value = select(i, ...)
            parts[i] = math.type(value) or type(value)
            parts[i] = parts[i] .. ":" .. string.format("%q", type(value) == "string" and value or tostring(value))
          end
          return table.concat(parts, "|")
        end
        local function attempt(f, ...)
          local results = table.pack(pcall(f, ...))
          if not results[1] then return "error:" .. tostring(results[2]) end
          return show(table.unpack(results, 2, results.n))
        end
        local function gathered(s, p, init)
          local found = {}
          for a, b in string.gmatch(s, p, init) do
            found[#found + 1] = show(a, b)
            if #found > 40 then break end
          end
          return table.concat(found, ";")
        end
        local inits = {false, 1, 2, 4, 0, -1, -3, -40, 17, 30}
        local templates = {"%0", "<%1>", "%2%1", "%%", "x%", "%a", "", "[%0]", "%1-%3"}
        local lookup = {a = "A", b = false, ["0"] = 7, x = {}, [" "] = "_"}
        local function replacer(first, ...)
          if first == "a" then return nil elseif first == "b" then return false elseif first == "c" then return {} end
          return tostring(first):upper() .. select("#", ...)
        end
        local lines = {}
        local function run(s, p, operation, init, replacement, most)
          local result
          if operation == 1 then result = attempt(string.find, s, p, init)
          elseif operation == 2 then result = attempt(string.find, s, p, init, true)
          elseif operation == 3 then result = attempt(string.match, s, p, init)
          elseif operation == 4 then result = attempt(gathered, s, p, init)
          elseif operation == 5 then result = attempt(function() return s:gsub(p, replacement, most) end)
          else result = attempt(string.gsub, s, p, replacement, most) end
          lines[#lines + 1] = string.format("%q %q %d %s", s, p, operation, result)
        end
        for _ = 1, count do
          local s, p = subject(), pattern()
          local init = inits[rand(#inits)] or nil
          local replacement = ({pick(templates), lookup, replacer})[rand(3)]
          local most = ({false, 0, 1, 2, -1})[rand(5)] or nil
          run(s, p, rand(6), init, replacement, most)
        end
        local many = string.rep("a", 300)
        run(many, string.rep("a?", 250), 1)
        run(many, string.rep("a?", 150), 1)
        run(many, string.rep("(", 33) .. "a" .. string.rep(")", 33), 1)
        run(many, string.rep("(a)", 32), 3)
        run("aaa", "^a", 6, nil, "b")
        run("^a^a", "^a", 4)
        run("hello world from Lua", "(%w+)", 6, nil, "<%1>", 2)
        run("abc", "%f[%a]", 4)
        run("THE (quick) fox", "%((%a+)%)", 6, nil, "%0%0")
        run("key = value", "(%w+)%s*=%s*(%w+)", 3)
        run("abc", "()", 4)
        run("abc", "a", 6, nil, 12.5)
        run("abc", "a", 6, nil, true)
        run("abc", "", 6, nil, "-")
        run("", "", 1, 2)
        run("abc", "b", 1, 9007199254740993)
        run("abc", "b", 1, math.mininteger)
        return lines
        """#
}
