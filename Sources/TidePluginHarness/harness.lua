-- The plugin harness's side of a plugin test file (docs/plugins.md, "Testing a plugin"): busted's
-- describe, it, pending, before_each, after_each and assert, and `harness`, which loads the plugin
-- under test in a sandbox of its own and drives it through scripted replies. Tide runs this chunk
-- in the test file's sandbox before the file, then each test in a protected call of its own.
local host = tide
tide = nil
local load_plugin, reply, logits, tool_call, tool_result, run_tool, write =
  host._load, host._reply, host._logits, host._tool_call, host._tool_result, host._run_tool, host._print

-- A value as a test's failure message shows it: strings quoted, tables written out (to a depth).
local function show(value, depth)
  depth = depth or 0
  if type(value) == "string" then return string.format("%q", value) end
  if type(value) ~= "table" then return tostring(value) end
  if depth > 3 then return "{…}" end
  local parts, count = {}, 0
  for key, item in pairs(value) do
    count = count + 1
    if count > 20 then
      parts[#parts + 1] = "…"
      break
    end
    local name = type(key) == "string" and key:match("^[%a_][%w_]*$") and key or "[" .. show(key, depth + 1) .. "]"
    parts[#parts + 1] = name .. " = " .. show(item, depth + 1)
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end

-- Whether two values are alike: equal, or tables with alike fields.
local function same(a, b, depth)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" or (depth or 0) > 50 then return false end
  for key, item in pairs(a) do
    if not same(item, b[key], (depth or 0) + 1) then return false end
  end
  for key in pairs(b) do
    if a[key] == nil then return false end
  end
  return true
end

-- Fails the test at the assertion's caller, with `message` and the caller's own words, if any.
local function fail(message, own)
  error((own and (tostring(own) .. ": ") or "") .. message, 3)
end

local checks = {}
function checks.equals(expected, actual, own)
  if expected ~= actual then fail("expected " .. show(expected) .. ", got " .. show(actual), own) end
end
checks.equal = checks.equals
function checks.same(expected, actual, own)
  if not same(expected, actual) then fail("expected the same as " .. show(expected) .. ", got " .. show(actual), own) end
end
function checks.is_true(value, own)
  if value ~= true then fail("expected true, got " .. show(value), own) end
end
function checks.is_false(value, own)
  if value ~= false then fail("expected false, got " .. show(value), own) end
end
function checks.is_nil(value, own)
  if value ~= nil then fail("expected nil, got " .. show(value), own) end
end
function checks.is_not_nil(value, own)
  if value == nil then fail("expected a value, got nil", own) end
end
function checks.truthy(value, own)
  if not value then fail("expected a true value, got " .. show(value), own) end
end
function checks.falsy(value, own)
  if value then fail("expected false or nil, got " .. show(value), own) end
end
function checks.matches(pattern, actual, own)
  if type(actual) ~= "string" or not actual:find(pattern) then
    fail("expected text matching " .. show(pattern) .. ", got " .. show(actual), own)
  end
end
function checks.has_error(call, expected, own)
  local ok, message = pcall(call)
  if ok then fail("expected an error" .. (expected and (" with " .. show(expected)) or "") .. ", got none", own) end
  if expected and not tostring(message):find(expected, 1, true) then
    fail("expected an error with " .. show(expected) .. ", got " .. show(message), own)
  end
end
assert = setmetatable({}, {
  __index = checks,
  __call = function(_, value, message, ...)
    if not value then error(message or "assertion failed!", 2) end
    return value, message, ...
  end,
})
checks.are, checks.is = assert, assert

-- The tests, in the order declared; each knows the levels (describe blocks) it is in.
local tests = {}
local root = { name = nil, before = {}, after = {} }
local levels = { root }

function describe(name, body)
  if type(body) ~= "function" then error("describe needs a name and a function", 2) end
  levels[#levels + 1] = { name = tostring(name), before = {}, after = {} }
  body()
  levels[#levels] = nil
end

local function test(name, body, pending)
  local names, within = {}, {}
  for index, level in ipairs(levels) do
    within[index] = level
    if level.name then names[#names + 1] = level.name end
  end
  names[#names + 1] = tostring(name)
  tests[#tests + 1] = { name = table.concat(names, " "), body = body, levels = within, pending = pending }
end

function it(name, body)
  if type(body) ~= "function" then error("it needs a name and a function", 2) end
  test(name, body, false)
end

function pending(name)
  test(name, nil, true)
end

function before_each(body)
  local level = levels[#levels]
  level.before[#level.before + 1] = body
end

function after_each(body)
  local level = levels[#levels]
  level.after[#level.after + 1] = body
end

-- JSON for the harness: a list for a table with keys 1..n only, an object otherwise.
local function json(value, depth)
  depth = depth or 0
  if depth > 50 then error("a table nested more than 50 deep", 0) end
  local kind = type(value)
  if value == nil then return "null" end
  if kind == "boolean" then return tostring(value) end
  if kind == "number" then
    if value ~= value or value == math.huge or value == -math.huge then error("a number JSON cannot hold: " .. tostring(value), 0) end
    return math.type(value) == "integer" and tostring(value) or string.format("%.17g", value)
  end
  if kind == "string" then
    return '"' .. value:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
  end
  if kind ~= "table" then error("a " .. kind .. " cannot be given to the harness", 0) end
  local count = 0
  for _ in pairs(value) do count = count + 1 end
  if count > 0 and count == #value then
    local items = {}
    for index = 1, #value do items[index] = json(value[index], depth + 1) end
    return "[" .. table.concat(items, ",") .. "]"
  end
  local fields = {}
  for key, item in pairs(value) do
    if type(key) ~= "string" and math.type(key) ~= "integer" then error("a table key must be a string or an integer", 0) end
    fields[#fields + 1] = json(tostring(key)) .. ":" .. json(item, depth + 1)
  end
  table.sort(fields)
  return "{" .. table.concat(fields, ",") .. "}"
end

-- What the harness answers: a table written as Lua, read back in an empty environment.
local function answer(text)
  return load("return " .. text, "=harness", "t", {})()
end

-- print writes its arguments, tab-separated, to standard output, as Lua's does.
function print(...)
  local parts = {}
  for index = 1, select("#", ...) do parts[index] = tostring((select(index, ...))) end
  write(json({ line = table.concat(parts, "\t") }))
end

local Plugin = {}
Plugin.__index = Plugin

-- The plugin's methods, each a request to Tide with the plugin's id (docs/plugins.md):
--   plugin:reply{user =, pieces = {…}, params = {…}}  one turn through the reply loop; what happened
--   plugin:logits{scores = {{id =, text =, logit =}}}  one step through on_logits; biased and banned
--   plugin:tool_call{name =, arguments = {…}}          on_tool_call's decision
--   plugin:tool_result{name =, content =, failed =}   on_tool_result's replacement, if any
--   plugin:run_tool{name =, arguments = {…}}           one of its own tools run: content or error
for name, call in pairs({ reply = reply, logits = logits, tool_call = tool_call, tool_result = tool_result, run_tool = run_tool }) do
  Plugin[name] = function(self, request)
    return answer(call(json({ plugin = self.id, request = request or {} })))
  end
end

harness = {}

-- The plugin under test (the file beside this one) with `options`, or another plugin by name or
-- path: harness.plugin{ sentences = 2 }, harness.plugin("stop-on-pattern", { pattern = "x" }).
function harness.plugin(spec, options)
  if type(spec) == "table" then spec, options = nil, spec end
  local loaded = answer(load_plugin(json({ spec = spec, options = options or {} })))
  return setmetatable(loaded, Plugin)
end

-- For Tide, in its own table, out of the test file's reach: how many tests there are, each
-- one's name, and running one ("passed", "pending", or the failure raised).
function host.test_count() return #tests end
function host.test_name(index) return tests[index].name end
function host.run_test(index)
  local chosen = tests[index]
  if chosen.pending then return "pending" end
  for _, level in ipairs(chosen.levels) do
    for _, body in ipairs(level.before) do body() end
  end
  local ok, message = pcall(chosen.body)
  for position = #chosen.levels, 1, -1 do
    local after = chosen.levels[position].after
    for step = #after, 1, -1 do after[step]() end
  end
  if not ok then error(message, 0) end
  return "passed"
end
