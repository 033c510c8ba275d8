/// A Lua chunk that calls the library functions the sandbox replaces (string.rep, upper, lower,
/// reverse, byte, format, pack, unpack; table.concat, move, insert, remove, sort; utf8.char,
/// len, offset; load) on ordinary and edge-case arguments, some long enough to be done in
/// pieces, and returns one line per call: its results or its error message.
enum LibraryCases {
    static let chunk = #"""
        local expressions = {
          "string.rep('ab', 3)", "string.rep('ab', 3, ',')", "string.rep('x', 0)", "string.rep('x', -1, 'y')",
          "string.rep('x', 1e10)", "string.rep('x', 2, nil)", "string.rep()", "('x'):rep('y')", "string.rep(string.rep('ab', 40000), 3, '|'):len()",
          "string.upper('aBc\\0é')", "string.lower('AbC')", "string.reverse('abc\\0d')", "string.upper(12)", "string.upper()", "string.upper(string.rep('ab', 70000)):sub(-5)",
          "string.reverse(string.rep('ab', 70000) .. 'c'):sub(1, 3)",
          "string.byte('abc')", "string.byte('abc', 1, -1)", "string.byte('abc', -10, 10)", "string.byte('abc', 3, 1)", "string.byte('abc', 0)", "string.byte('')", "select('#', string.byte(string.rep('a', 5000), 1, -1))", "string.byte('abc', 'x')",
          "string.format('%d %s %q', 5, 'x', 'a\\n\\0b')", "string.format('%d', 'x')", "('%d'):format('x')", "string.format('%y')", "string.format('%10q', 'a')", "string.format('%', 1)",
          "string.format('%5.2f|%-5d|%x', 3.14159, 42, 255)", "string.format('%q', 1/0)", "string.format('%q', {})", "string.format('%s %s', 1)",
          "string.format(string.rep('%d,', 3000), table.unpack((function() local t = {} for i = 1, 3000 do t[i] = i end return t end)())):sub(-12)",
          "string.format(string.rep('%d,', 3000) .. '%d', table.unpack((function() local t = {} for i = 1, 3000 do t[i] = i end t[3000] = 'x' return t end)()))",
          "string.format(string.rep('%d,', 2000) .. '%y', table.unpack((function() local t = {} for i = 1, 2000 do t[i] = i end return t end)()))",
          "#string.format(string.rep('ab', 50000) .. '%s' .. string.rep('cd', 50000), 'x')",
          "string.format('%q', string.rep('a\\1' .. '2\\0' .. '\\n\"\\\\', 30000)) == string.format('%q', string.rep('a\\1' .. '2\\0' .. '\\n\"\\\\', 30000))",
          "#string.format('<%q>', string.rep('\\1', 70000) .. '5')", "string.format('<%q>', string.rep('\\1', 65535) .. '55'):sub(-12)",
          "string.format('%s|%q|%s', 'a', string.rep('x', 70000), 'b'):sub(-8)", "string.format(string.rep('x', 70000) .. '%d', 'y')",
          "string.format('%s', setmetatable({}, {__tostring = function() return 'T' end}))", "string.format('%s', setmetatable({}, {__tostring = function() return {} end}))",
          "string.pack('i4', 7):byte(1, -1)", "string.unpack('i4', string.pack('i4', 7))", "string.pack('i17', 1)", "string.unpack('i4', 'ab')",
          "table.concat({1, 2, 3}, ', ')", "table.concat({1, {}, 3})", "table.concat({}, 'x')", "table.concat({'a', 'b', 'c'}, '-', 2)", "table.concat({'a', 'b', 'c'}, '-', 2, 5)",
          "table.concat('x')", "table.concat(setmetatable({}, {__index = function(_, i) return i end, __len = function() return 3 end}))",
          "table.concat({1, 2}, {})", "#table.concat((function() local t = {} for i = 1, 5000 do t[i] = i end return t end)(), ',')",
          "table.move({1, 2, 3}, 1, 3, 2)[3]", "table.concat(table.move({1, 2, 3}, 1, 3, 2), ',')", "table.concat(table.move({1, 2, 3}, 2, 3, 1), ',')",
          "table.concat(table.move({1, 2, 3}, 1, 3, 1, {}), ',')", "table.move({}, 1, math.maxinteger, 2)", "table.move({}, -1, math.maxinteger, 2)", "table.move(1, 1, 2, 3)",
          "table.concat((function() local t = {1, 2, 3} table.insert(t, 1, 0) table.insert(t, 9) table.insert(t, 3, 'x') return t end)(), ',')",
          "table.insert({1, 2}, 5, 0)", "table.insert({}, 1, 2, 3)", "table.insert({})", "table.insert(nil, 1)",
          "(function() local t = {1, 2, 3} local r = table.remove(t, 1) return r, table.concat(t, ',') end)()",
          "(function() local t = {1, 2, 3} local r = table.remove(t) return r, #t end)()", "table.remove({}, 0)", "table.remove({1}, 5)", "table.remove({})",
          "(function() local t = {5, 2, 8, 1} table.sort(t) return table.concat(t, ',') end)()",
          "(function() local t = {5, 2, 8, 1} table.sort(t, function(a, b) return a > b end) return table.concat(t, ',') end)()",
          "table.sort({1, 'x', 2})", "table.sort({3, 2, 1}, 'x')", "table.sort('x')", "table.sort({1, 2, 3}, function() return true end)",
          "(function() local t = {} for i = 1, 3000 do t[i] = (i * 7919) % 3001 end table.sort(t) return t[1], t[1500], t[3000] end)()",
          "utf8.char(72, 228, 8364, 128512)", "utf8.char(-1)", "utf8.char(0x7FFFFFFF):len()", "utf8.char(0x80000000)", "utf8.char('x')",
          "#utf8.char(table.unpack((function() local t = {} for i = 1, 3000 do t[i] = 0x4E00 + i end return t end)()))",
          "utf8.char(table.unpack((function() local t = {} for i = 1, 3000 do t[i] = 65 end t[2500] = -5 return t end)()))",
          "utf8.len('häll€')", "utf8.len('\\xff')", "utf8.len('abc', 5)", "utf8.len('abc', 1, 5)", "utf8.len('abc', -1)", "utf8.len('')",
          "utf8.len(string.rep('é', 70000))", "utf8.len(string.rep('é', 40000) .. '\\xff' .. string.rep('é', 40000))",
          "utf8.len(string.rep('é', 70000), 2)", "utf8.len(string.rep('a€', 50000), 3, -2)", "utf8.len(string.rep('\\x80', 70000))",
          "utf8.len(string.rep('\\xf4\\x90\\x80\\x80', 30000))", "utf8.len(string.rep('\\xf4\\x90\\x80\\x80', 30000), 1, -1, true)",
          "utf8.len(string.rep('a', 65535) .. '\\xf0\\x9f\\x98\\x80' .. string.rep('a', 10))",
          "utf8.offset('häll€', 3)", "utf8.offset('häll€', -1)", "utf8.offset('häll€', 0, 3)", "utf8.offset('häll€', 1, 3)", "utf8.offset('abc', 1, 10)",
          "utf8.offset(string.rep('é', 70000), 68000)", "utf8.offset(string.rep('é', 70000), -68000)", "utf8.offset(string.rep('é', 70000), 70001)",
          "utf8.offset(string.rep('é', 70000), 70002)", "utf8.offset(string.rep('é', 70000), -70001)", "utf8.offset(string.rep('é', 70000), 66000, 5)",
          "utf8.offset(string.rep('é', 70000), 66000, 2)", "utf8.offset(string.rep('é', 70000), -66000, 80001)", "utf8.offset(string.rep('é', 70000), 65536)",
          "load('return ' .. string.rep('1 + ', 30000) .. '1')()", "load(string.rep(' ', 70000) .. 'return 5')()",
        }
        local lines = {}
        for i, expression in ipairs(expressions) do
          local results = table.pack(pcall(load("return " .. expression, "=expr")))
          local parts = {}
          for k = 1, results.n do parts[k] = (math.type(results[k]) or type(results[k])) .. ":" .. tostring(results[k]) end
          lines[i] = expression:sub(1, 60) .. " => " .. table.concat(parts, "|")
        end
        return lines
        """#
}
