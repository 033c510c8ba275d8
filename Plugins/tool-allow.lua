-- tool-allow: a policy on tool calls (Lua plugins' tools and MCP servers' alike): only the
-- tools listed run, and only with arguments that pass its rules; every other call is refused,
-- and the model reads why.
--
-- With `folder`, the policy decides on what a tool would open: every string in the arguments,
-- at any depth, and every key (but those under the arguments named in `text`), is read as a
-- path, and each reading must lead inside the folder.
--   - Spellings: the string as written, and as a server may decode it — %-escapes (%2e, %2f,
--     %5c, %u002e, again for %252e), Unicode's NFKC (‥ as .., ／ as /, ％ as %), other
--     lookalikes of / \ and . (∕ ⁄ ⧸ ∖ ⧹ 。), \ as a separator, overlong UTF-8, surrounding
--     spaces trimmed, a file: URI's path, the VALUE of --name=VALUE and of -xVALUE — and each
--     of those decoded again (at most 32 spellings).
--   - Resolution: an absolute path as it is, a relative one taken inside the folder; then as
--     the system opens it (tide.realpath: symbolic links followed, ".." taken after them, the
--     part that does not exist yet applied as written), and as a server that first applies "."
--     and ".." as written does.
-- A call is refused when a reading leads outside the folder, and when the policy cannot be
-- sure: a NUL byte, a path that starts with ~ or $NAME (a server may expand it), a link it
-- cannot read or that loops, more than 32 spellings, a string over 64 KiB, arguments nested
-- deeper than 16 levels, more than it can check within its instruction budget. A reading
-- longer than the system opens (4,095 bytes) names nothing, and is not resolved.
-- Arguments whose name ends in "path" or "paths", or is file, files, directory, dir, folder,
-- source, destination, target, root or cwd, hold paths: a relative one at the top is run as the
-- full path inside the folder (the call is rewritten); one in a list or table under such a name
-- must be absolute. A relative path elsewhere is checked as taken inside the folder: a server
-- that takes it from its own working folder (Tide's) reads the same only when Tide runs in the
-- folder. What the policy cannot see: paths a server makes from other data (an id, a name it
-- looks up, a string it cuts up), and a link changed between the check and the call.
--
-- Options:  tools = ""       the tools that may run, by name, separated by commas; * stands for
--                            any run of characters ("git__git_status,git__git_log,time__*")
--           folder = ""      the folder the arguments must stay in (none: paths are not checked)
--           arguments = ""   more rules, NAME~PATTERN separated by ";": argument NAME, when given,
--                            must match the Lua pattern ("branch~^[%w%-_/]+$")
--           text = ""        arguments that hold text, not paths, by name, separated by commas:
--                            not read as paths ("content,message")
-- Example:  tide chat --mcp "git: mcp-server-git" \
--             --plugin "tool-allow tools=git__git_status,git__git_log,git__git_show folder=$PWD"
local plugin = {
  name = "tool-allow",
  version = "2.0",
  description = "Let only the tools listed run, with every path in their arguments kept inside one folder.",
  options = { tools = "", folder = "", arguments = "", text = "" },
}

-- A glob with * as a Lua pattern matching the whole name.
local function glob_pattern(glob)
  return "^" .. glob:gsub("[%^%$%(%)%%%.%[%]%+%-%?]", "%%%0"):gsub("%*", ".*") .. "$"
end

local allowed, rules, texts, folder, real_folder, broken = {}, {}, {}, nil, nil, nil
local outside

-- An absolute `path` with "." and ".." applied as written (".." at the root stays there, as the
-- system has it).
local function as_written(path)
  local parts = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." then
      parts[#parts] = nil
    elseif part ~= "." then
      parts[#parts + 1] = part
    end
  end
  return "/" .. table.concat(parts, "/")
end

local function inside(path, root)
  return path == root or path:sub(1, #root + 1) == root .. "/" or root == "/"
end

-- At most 200 bytes of `text`, cut at a character, control characters written \xNN, for a message.
local function shown(text)
  local cut = #text > 200 and (text:sub(1, 200):gsub("[\192-\255][\128-\191]*$", "")) .. "…" or text
  return (cut:gsub("%c", function(c) return string.format("\\x%02X", c:byte()) end))
end

-- Argument names that hold paths: any ending in "path" or "paths", and these.
local path_names = { file = true, files = true, directory = true, dir = true, folder = true, source = true,
                     destination = true, target = true, root = true, cwd = true }

local function is_path_name(name)
  name = tostring(name):lower()
  return name:match("paths?$") ~= nil or path_names[name] == true
end

-- Characters some servers read as / \ or . that NFKC leaves as they are (tide.nfkc does the rest).
local lookalikes = {
  ["\u{2215}"] = "/", ["\u{2044}"] = "/", ["\u{29F8}"] = "/", ["\u{2571}"] = "/", ["\u{27CB}"] = "/",
  ["\u{2216}"] = "\\", ["\u{29F5}"] = "\\", ["\u{29F9}"] = "\\", ["\u{27CD}"] = "\\",
  ["\u{3002}"] = ".", ["\u{FF61}"] = ".",
}

-- Each way a server may decode a string; nil when it does not apply.
local decoders = {
  function(text) -- %-escapes, and IIS's %uXXXX
    if not text:find("%", 1, true) then return nil end
    return (text:gsub("%%[uU](%x%x%x%x)", function(hex) return utf8.char(tonumber(hex, 16)) end)
                :gsub("%%(%x%x)", function(hex) return string.char(tonumber(hex, 16)) end))
  end,
  function(text) -- Unicode's compatibility form
    if not text:find("[\128-\255]") then return nil end
    return tide.nfkc(text)
  end,
  function(text) -- lookalikes NFKC keeps
    if not text:find("[\128-\255]") then return nil end
    return (text:gsub(utf8.charpattern, lookalikes))
  end,
  function(text) -- overlong UTF-8 (C0 AE for ".", C0 AF for "/")
    if not text:find("[\192\193\224]") then return nil end
    return (text:gsub("([\192\193])([\128-\191])", function(lead, last) return string.char((lead:byte() - 192) * 64 + last:byte() - 128) end)
                :gsub("\224([\128\129])([\128-\191])", function(middle, last) return string.char((middle:byte() - 128) * 64 + last:byte() - 128) end))
  end,
  function(text) -- \ as a separator
    if not text:find("\\", 1, true) then return nil end
    return (text:gsub("\\", "/"))
  end,
  function(text) -- spaces around the path trimmed
    if not (text:find("^%s") or text:find("%s$")) then return nil end
    return text:match("^%s*(.*%S)") or ""
  end,
  function(text) -- a file: URI's path
    local rest = text:match("^[Ff][Ii][Ll][Ee]:(.*)$")
    if rest and rest:sub(1, 2) == "//" then return rest:match("^//[^/]*(.*)$") end
    return rest
  end,
  function(text) -- the value of an option, --name=VALUE or -xVALUE
    return text:match("^%-%-?[%w_][%w_%-]*=(.*)$") or text:match("^%-%a(.+)$")
  end,
}

local spelling_limit = 32

-- The work one call's check may do, in units of the sandbox's instruction budget, counted
-- before it is done: past it the call is refused, before the budget runs out (a plugin stopped
-- by its budget is disabled). Each name tide.realpath looks up costs 512 units and some more here.
local work_limit, work = 4000000, 0
local too_much = "the arguments are too many or too long for the policy to check"
  .. " (arguments of text, not paths, can be named in its option text)"

local function spend(units)
  work = work + units
  return work > work_limit
end

-- The spellings of `text`: as written, then every decoding of every spelling found; nil and
-- why when there are more than `spelling_limit`, or more than the work left.
local function spellings(text)
  local found, list, next = { [text] = true }, { text }, 1
  while next <= #list do
    local current = list[next]
    if spend(200 + 24 * #current) then return nil, too_much end
    for _, decode in ipairs(decoders) do
      local decoded = decode(current)
      if decoded and not found[decoded] then
        if #list == spelling_limit then
          return nil, " can be decoded in more than " .. spelling_limit .. " ways; the policy cannot be sure where it leads"
        end
        found[decoded], list[#list + 1] = true, decoded
      end
    end
    next = next + 1
  end
  return list
end

-- The longest string read as a path: a longer one is refused.
local longest_string = 65536
-- The longest path the system opens (PATH_MAX, with its NUL): a longer reading names nothing.
local longest_path = 4095

-- Why the string `text`, under argument `name`, may lead outside the folder; nil when every
-- reading of it leads inside.
local function escapes(text, name)
  if #text > longest_string then
    return "argument " .. name .. " holds a string of " .. #text .. " bytes, too long to be read as a path"
      .. " (arguments of text, not paths, can be named in the option text)"
  end
  if spend(1000) then return too_much end
  local all, why = spellings(text)
  if not all then return why == too_much and why or "argument " .. name .. " (" .. shown(text) .. ")" .. why end
  for _, spelling in ipairs(all) do
    local function what()
      return "argument " .. name .. " (" .. shown(text) .. (spelling == text and "" or ", read as " .. shown(spelling)) .. ")"
    end
    if spelling:find("\0", 1, true) then return what() .. " holds a NUL byte, where a server may cut the path" end
    local user = spelling:match("^~([^/]*)")
    if user and (user == "" or user:match("^[%a_][%w._-]*$")) then
      return what() .. " starts with ~, which a server may read as a home folder"
    end
    if spelling:match("^%$[%a_{]") then return what() .. " starts with a variable, which a server may expand" end
    local path = spelling:sub(1, 1) == "/" and spelling or folder .. "/" .. spelling
    if spend(8 * #path) then return too_much end
    local written = as_written(path)
    -- As the system opens it, and as a server that applies "." and ".." first does.
    for _, reading in ipairs(path == written and { path } or { path, written }) do
      if #reading <= longest_path then
        local reached, lookups = tide.realpath(reading)
        if not reached then return what() .. " cannot be resolved: " .. lookups end
        if spend(600 * lookups) then return too_much end
        if not inside(reached, real_folder) then
          return what() .. " is outside " .. folder .. (reached == written and "" or ": it leads to " .. shown(reached))
        end
      end
    end
  end
  return nil
end

-- Why `value`, an argument or a part of one (`holds_paths` when its name says it holds paths),
-- may lead outside the folder; nil when it does not. Tables are walked, keys and values; a path
-- in a list or table under a path argument must be absolute (the call cannot be rewritten there).
outside = function(value, name, holds_paths, depth)
  if depth > 16 then return "the arguments nest deeper than 16 levels" end
  if type(value) == "string" then
    if holds_paths and depth > 1 and value:sub(1, 1) ~= "/" then
      return "argument " .. name .. ": a path in a list or table must be absolute, not " .. shown(value)
    end
    return escapes(value, name)
  elseif type(value) == "table" then
    for key, item in pairs(value) do
      local argument = depth == 0 and tostring(key) or name
      if not (depth == 0 and texts[argument]) then
        local why = type(key) == "string" and escapes(key, argument)
          or outside(item, argument, type(key) == "number" and holds_paths or is_path_name(key), depth + 1)
        if why then return why end
      end
    end
  end
  return nil
end

-- Reads the options once; a mistake in them refuses every call, and says which.
local function read_options()
  for glob in tide.options.tools:gmatch("[^,%s]+") do allowed[#allowed + 1] = glob_pattern(glob) end
  for name in tide.options.text:gmatch("[^,%s]+") do texts[name] = true end
  for rule in tide.options.arguments:gmatch("[^;]+") do
    local name, pattern = rule:match("^%s*([%w_%-]+)~(.*)$")
    if not name or not pcall(string.match, "", pattern) then
      broken = "its option arguments is not NAME~PATTERN;…: '" .. rule .. "'"
    end
    rules[#rules + 1] = { name = name, pattern = pattern }
  end
  if tide.options.folder ~= "" then
    if tide.options.folder:sub(1, 1) ~= "/" then
      broken = "its option folder must be an absolute path, not '" .. tide.options.folder .. "'"
    else
      folder = as_written(tide.options.folder)
      local why
      real_folder, why = tide.realpath(folder)
      if not real_folder then broken = "its folder " .. folder .. " cannot be resolved: " .. why end
    end
  end
  if #allowed == 0 then allowed[1] = "^$" end
end

function plugin.on_tool_call(call)
  if #allowed == 0 then read_options() end
  if broken then return { refuse = "tool-allow is misconfigured: " .. broken } end
  local listed = false
  for _, pattern in ipairs(allowed) do
    if call.name:match(pattern) then listed = true end
  end
  if not listed then
    return { refuse = call.name .. " is not among the tools allowed here (" .. tide.options.tools .. ")" }
  end
  if type(call.arguments) ~= "table" then return { refuse = "the arguments are not a JSON object" } end
  for _, rule in ipairs(rules) do
    local value = call.arguments[rule.name]
    if value ~= nil and not tostring(value):match(rule.pattern) then
      return { refuse = "argument " .. rule.name .. " does not match " .. rule.pattern }
    end
  end
  if not folder then return nil end
  work = 0
  local why = outside(call.arguments, "", false, 0)
  if why then return { refuse = why } end
  -- A relative path at the top runs inside the folder: the call gets the full path.
  local rewritten, changed = {}, false
  for name, value in pairs(call.arguments) do
    rewritten[name] = value
    if type(value) == "string" and is_path_name(name) and not texts[name] and value:sub(1, 1) ~= "/" then
      rewritten[name], changed = as_written(folder .. "/" .. value), true
    end
  end
  if changed then return { arguments = rewritten } end
end

return plugin
