-- censor-words: mask chosen words in the reply as it streams.
--
-- Whole words only, in any letter case ("Darn" and "DARN" too, but not "darning"); a word is a
-- run of letters, digits and underscores, so "darn_it" is left alone too. The word being written
-- is held back until it is complete, and released when the reply ends.
--
-- Options:  words = "darn,heck"   comma-separated words to mask
--           mask = "*"            the character repeated over a masked word
-- Example:  tide generate --plugin 'censor-words words="rain,cloud"' "Describe a rainy day."
local plugin = {
  name = "censor-words",
  version = "1.0",
  description = "Mask chosen words in the reply.",
  options = { words = "darn,heck", mask = "*" },
}

local function banned()
  if not tide.state.banned then
    tide.state.banned = {}
    for word in tide.options.words:gmatch("[^,%s]+") do tide.state.banned[word:lower()] = true end
  end
  return tide.state.banned
end

local function censor(text)
  local words = banned()
  return (text:gsub("[%w_]+", function(word)
    if words[word:lower()] then return tide.options.mask:rep(utf8.len(word) or #word) end
  end))
end

function plugin.on_token(token)
  local text = (tide.state.held or "") .. token.text
  if token.final then
    tide.state.held = ""
    return censor(text)
  end
  local cut = text:match(".*()[^%w_]") or 0
  tide.state.held = text:sub(cut + 1)
  return censor(text:sub(1, cut))
end

return plugin
