-- word-budget: end the reply once it has used its budget of words.
--
-- Counts runs of non-space characters, so "well-known" is one word and an emoji is one word.
--
-- Options:  words = 50   the most words the reply may have
-- Example:  tide generate --plugin 'word-budget words=20' "Explain how tides work."
local plugin = {
  name = "word-budget",
  version = "1.0",
  description = "Stop once the reply reaches N words.",
  options = { words = 50 },
}

function plugin.should_stop(reply)
  local _, count = reply.text:gsub("%S+", "")
  if count >= tide.options.words then
    return true, count .. " words"
  end
end

return plugin
