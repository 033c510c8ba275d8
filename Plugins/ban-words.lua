-- ban-words: keep chosen words out of the reply by banning the tokens that would spell them.
--
-- Before each token is sampled, the plugin looks at the best candidates and bans every one that
-- would make the reply contain a banned word starting at a word boundary, in any letter case
-- (ASCII): the model then picks its best remaining token. A word spelled over several tokens
-- ("Par" + "is") is caught at the token that completes it. Words are matched as prefixes, so
-- banning "cat" also keeps out "category". Only the `depth` best candidates are checked; with
-- greedy decoding or top-k sampling up to `depth`, nothing else can be sampled.
-- Needs a local model (on_logits is not available with remote backends).
--
-- Options:  words = ""       comma-separated words to ban
--           depth = 64       how many of the best candidates to check at each token
-- Example:  tide generate --plugin 'ban-words words=Paris' "What is the capital of France?"
local plugin = {
  name = "ban-words",
  version = "1.0",
  description = "Ban the tokens that would spell chosen words.",
  options = { words = "", depth = 64 },
}

-- The banned words in lower case, and the longest one's length.
local function banned()
  if not tide.state.words then
    local words, longest = {}, 0
    for word in tide.options.words:gmatch("[^,]+") do
      word = word:match("^%s*(.-)%s*$"):lower()
      if word ~= "" then
        words[#words + 1] = word
        longest = math.max(longest, #word)
      end
    end
    if #words == 0 then error("set the words option, e.g. --plugin 'ban-words words=\"Paris,London\"'", 0) end
    tide.state.words, tide.state.longest = words, longest
  end
  return tide.state.words, tide.state.longest
end

-- Whether `text` holds `word` starting at a word boundary and ending after byte `after`.
local function spells(text, word, after)
  local from = math.max(1, after - #word + 2)
  while true do
    local start, finish = text:find(word, from, true)
    if not start then return false end
    if finish > after and (start == 1 or not text:sub(start - 1, start - 1):match("%w")) then return true end
    from = start + 1
  end
end

function plugin.on_logits(view, reply)
  local words, longest = banned()
  -- Enough of the reply to see a word that the next token would complete, and the byte before it.
  local context = reply.text:sub(-(longest + 1)):lower()
  for _, candidate in ipairs(view:top(tide.options.depth)) do
    local text = context .. candidate.text:lower()
    for _, word in ipairs(words) do
      if spells(text, word, #context) then
        view:ban(candidate.id)
        break
      end
    end
  end
end

return plugin
