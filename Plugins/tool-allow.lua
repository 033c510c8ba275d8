-- tool-allow: a policy on tool calls (Lua plugins' tools and MCP servers' alike): only the
-- tools listed run, and only with arguments that pass its rules; every other call is refused,
-- and the model reads why.
--
-- A path argument is checked against `folder`: one whose name ends in "path" or "paths", or is
-- file, files, directory, dir, folder, source, destination, target, root or cwd, and the paths in
-- lists and tables under such a name. A relative path at the top is taken inside the folder (the
-- call runs with it rewritten to the full path); one in a list must be absolute. "." and ".." are
-- resolved as written, and a path that ends up outside the folder is refused. (Symbolic links
-- inside the folder are the server's to resolve: give it a folder without links out.)
--
-- Options:  tools = ""       the tools that may run, by name, separated by commas; * stands for
--                            any run of characters ("git__git_status,git__git_log,time__*")
--           folder = ""      the folder path arguments must stay in (none: paths are not checked)
--           arguments = ""   more rules, NAME~PATTERN separated by ";": argument NAME, when given,
--                            must match the Lua pattern ("branch~^[%w%-_/]+$")
-- Example:  tide chat --mcp "git: mcp-server-git" \
--             --plugin "tool-allow tools=git__git_status,git__git_log,git__git_show folder=$PWD"
local plugin = {
  name = "tool-allow",
  version = "1.0",
  description = "Let only the tools listed run, with path arguments kept inside one folder.",
  options = { tools = "", folder = "", arguments = "" },
}

-- A glob with * as a Lua pattern matching the whole name.
local function glob_pattern(glob)
  return "^" .. glob:gsub("[%^%$%(%)%%%.%[%]%+%-%?]", "%%%0"):gsub("%*", ".*") .. "$"
end

local allowed, rules, folder, broken = {}, {}, nil, nil
local outside

-- `path` with "." and ".." resolved, relative paths taken inside `base`; nil when ".." climbs
-- above the root.
local function resolve(path, base)
  local parts = {}
  local full = path:sub(1, 1) == "/" and path or (base .. "/" .. path)
  for part in full:gmatch("[^/]+") do
    if part == ".." then
      if #parts == 0 then return nil end
      table.remove(parts)
    elseif part ~= "." then
      parts[#parts + 1] = part
    end
  end
  return "/" .. table.concat(parts, "/")
end

local function inside(path, root)
  return path == root or path:sub(1, #root + 1) == root .. "/" or root == "/"
end

-- Argument names that hold paths: any ending in "path" or "paths", and these.
local path_names = { file = true, files = true, directory = true, dir = true, folder = true, source = true,
                     destination = true, target = true, root = true, cwd = true }

local function is_path_name(name)
  name = tostring(name):lower()
  return name:match("paths?$") ~= nil or path_names[name] == true
end

-- Why `value`, an argument or a part of one (`holds_paths` when its name says it holds paths),
-- names a place outside the folder; nil when it does not. Lists and nested tables are walked: a
-- path in them must be absolute (the call cannot be rewritten there).
outside = function(value, name, holds_paths, depth)
  if depth > 16 then return "the arguments nest deeper than 16 levels" end
  if type(value) == "string" and holds_paths then
    if depth > 1 and value:sub(1, 1) ~= "/" then
      return "argument " .. name .. ": a path in a list or table must be absolute, not " .. value
    end
    local resolved = resolve(value, folder)
    if not resolved or not inside(resolved, folder) then return "argument " .. name .. " (" .. value .. ") is outside " .. folder end
  elseif type(value) == "table" then
    for key, item in pairs(value) do
      local why = outside(item, depth == 0 and tostring(key) or name, type(key) == "number" and holds_paths or is_path_name(key), depth + 1)
      if why then return why end
    end
  end
  return nil
end

-- Reads the options once; a mistake in them refuses every call, and says which.
local function read_options()
  for glob in tide.options.tools:gmatch("[^,%s]+") do allowed[#allowed + 1] = glob_pattern(glob) end
  for rule in tide.options.arguments:gmatch("[^;]+") do
    local name, pattern = rule:match("^%s*([%w_%-]+)~(.*)$")
    if not name or not pcall(string.match, "", pattern) then
      broken = "its option arguments is not NAME~PATTERN;…: '" .. rule .. "'"
    end
    rules[#rules + 1] = { name = name, pattern = pattern }
  end
  if tide.options.folder ~= "" then
    folder = resolve(tide.options.folder, "/")
    if not folder or tide.options.folder:sub(1, 1) ~= "/" then
      broken = "its option folder must be an absolute path, not '" .. tide.options.folder .. "'"
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
  local why = outside(call.arguments, "", false, 0)
  if why then return { refuse = why } end
  -- A relative path at the top runs inside the folder: the call gets the full path.
  local rewritten, changed = {}, false
  for name, value in pairs(call.arguments) do
    rewritten[name] = value
    if type(value) == "string" and is_path_name(name) and value:sub(1, 1) ~= "/" then
      rewritten[name], changed = resolve(value, folder), true
    end
  end
  if changed then return { arguments = rewritten } end
end

return plugin
