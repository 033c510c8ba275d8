-- ban-regex: keep text matching Lua patterns out of the reply by taking it back as it forms.
--
-- After each token the plugin looks for a match of any pattern in the last `window` bytes of
-- the reply. When one appears, it takes the reply back to the token where the match began
-- (tide.rewind) and bans that token there, so the model writes something else; nothing taken
-- back is shown. Patterns are Lua patterns (the sandbox's matcher: %d, %a, [...], -, *, ...,
-- no alternation), separated by `separator`; with ignore_case the text is lowered first, so
-- write the patterns in lower case. A match must fit in the window (at most 1024 bytes); %f
-- frontiers see the byte before it, but ^ anchors at its start. Empty matches are ignored.
-- Needs a local model (a server cannot take tokens back).
--
-- Options:  patterns = ""       Lua patterns, separated by `separator`
--           separator = "||"    what separates the patterns
--           window = 64         how many of the last bytes a match may span (bytes)
--           ignore_case = true  match the lowered text
-- Example:  tide generate --plugin 'ban-regex patterns=%d%d%d%d' "In which year did the Berlin Wall fall?"
local plugin = {
  name = "ban-regex",
  version = "1.0",
  description = "Take back text matching Lua patterns as it forms, and make the model choose again.",
  options = { patterns = "", separator = "||", window = 64, ignore_case = true },
}

-- The patterns, each checked once.
local function patterns()
  if tide.state.patterns then return tide.state.patterns end
  local list, separator = {}, tide.options.separator
  if separator == "" then error("separator must not be empty", 0) end
  local text, at = tide.options.patterns, 1
  while at <= #text + 1 do
    local stop = text:find(separator, at, true) or #text + 1
    local pattern = text:sub(at, stop - 1)
    if pattern ~= "" then
      local ok, problem = pcall(string.find, "", pattern)
      if not ok then error("the pattern " .. string.format("%q", pattern) .. " is not a Lua pattern: " .. problem, 0) end
      list[#list + 1] = pattern
    end
    at = stop + #separator
  end
  if #list == 0 then error("nothing to ban: give patterns (patterns='%d%d%d%d||colou?r')", 0) end
  tide.state.patterns = list
  return list
end

function plugin.rewind_window()
  local window = tide.options.window
  if window < 1 then error("window must be at least 1 byte", 0) end
  return window
end

function plugin.should_stop(reply)
  local text = reply.text
  -- The window, and the byte before it, so that %f[...] frontiers see the real text there.
  local from = math.max(1, #text - tide.options.window + 1)
  local context = from > 1 and 1 or 0
  local tail = text:sub(from - context)
  if tide.options.ignore_case then tail = tail:lower() end
  local first
  for _, pattern in ipairs(patterns()) do
    local at = 1 + context
    while at <= #tail do
      local start, stop = tail:find(pattern, at)
      if not start then break end
      if stop >= start then
        if not first or start < first then first = start end
        break
      end
      at = start + 1
    end
  end
  if first then tide.rewind(from - context + first - 1) end
end

return plugin
