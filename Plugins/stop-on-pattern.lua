-- stop-on-pattern: end the reply as soon as its text matches a Lua pattern.
--
-- The text that matched stays in the reply (use --stop for strings that must not be shown).
--
-- Options:  pattern = ""     a Lua pattern (see the Lua manual, §6.4.1); required
--           plain = false    true: match the pattern as plain text, not as a pattern
-- Example:  tide generate --plugin 'stop-on-pattern pattern="%d%d%d%d"' "When did the Titanic sink?"
local plugin = {
  name = "stop-on-pattern",
  version = "1.0",
  description = "Stop when the reply matches a Lua pattern.",
  options = { pattern = "", plain = false },
}

function plugin.should_stop(reply)
  local pattern = tide.options.pattern
  if pattern == "" then
    error("set the pattern option, e.g. --plugin 'stop-on-pattern pattern=\"%d+\"'")
  end
  if reply.text:find(pattern, 1, tide.options.plain) then
    return true, "matched " .. pattern
  end
end

return plugin
