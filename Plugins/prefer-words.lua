-- prefer-words: nudge the model towards chosen words by raising the scores of their tokens.
--
-- At the start of a word, the first token of each preferred word, as the model's tokenizer spells
-- it ("word", " word", "Word", " Word", and as given), gets `bias` added to its logit. Once the
-- reply has begun one of the words, only what continues it is raised (the candidates that do, and
-- the first token of the word's remaining letters), so a started word is finished. A token gets
-- the bias once a step, however many of these reasons pick it. A bias of 2 to 4 makes a word
-- likely where it fits; 10 or more forces it in.
-- Needs a local model (on_logits is not available with remote backends).
--
-- Options:  words = ""       comma-separated words to prefer
--           bias = 3.0       added to the logit of each token that starts or continues one
--           depth = 40       how many of the best candidates to check for continuations
-- Example:  tide generate --plugin 'prefer-words words=ocean bias=4' "Describe a summer day."
local plugin = {
  name = "prefer-words",
  version = "1.0",
  description = "Raise the scores of tokens that spell chosen words.",
  options = { words = "", bias = 3.0, depth = 40 },
}

-- The preferred words (lower case), and the first tokens of their spellings: those that begin
-- with a space start a new word anywhere, the others only after a space or punctuation.
local function preferred()
  if not tide.state.words then
    local words, spaced, bare = {}, {}, {}
    for word in tide.options.words:gmatch("[^,]+") do
      word = word:match("^%s*(.-)%s*$")
      if word ~= "" then
        local lower = word:lower()
        words[#words + 1] = lower
        for _, spelling in ipairs({ word, lower, lower:sub(1, 1):upper() .. lower:sub(2) }) do
          spaced[tide.tokenize(" " .. spelling)[1]] = true
          bare[tide.tokenize(spelling)[1]] = true
        end
      end
    end
    if #words == 0 then error("set the words option, e.g. --plugin 'prefer-words words=\"ocean,wave\"'", 0) end
    tide.state.words, tide.state.spaced, tide.state.bare = words, spaced, bare
  end
  return tide.state.words, tide.state.spaced, tide.state.bare
end

-- Adds to `raise` the candidates that continue `partial` (lower case) towards one of `words`,
-- and the first token of the rest of each word it begins, which may rank too low to be a
-- candidate (or be one too: `raise` is a set, so it is raised once).
local function continue(raise, view, partial, words)
  for _, word in ipairs(words) do
    if #partial < #word and word:sub(1, #partial) == partial then
      local rest = tide.tokenize(word:sub(#partial + 1))[1]
      if rest then raise[rest] = true end
    end
  end
  for _, candidate in ipairs(view:top(tide.options.depth)) do
    local text = partial .. candidate.text:lower()
    for _, word in ipairs(words) do
      local n = math.min(#text, #word)
      if #text > #partial and #partial < #word and text:sub(1, n) == word:sub(1, n) then
        raise[candidate.id] = true
        break
      end
    end
  end
end

-- Whether `partial` (lower case) is the beginning of one of `words`, not yet all of it.
local function unfinished(partial, words)
  for _, word in ipairs(words) do
    if #partial < #word and word:sub(1, #partial) == partial then return true end
  end
  return false
end

function plugin.on_logits(view, reply)
  local words, spaced, bare = preferred()
  local partial = reply.text:match("%f[%w][%w']+$")
  partial = partial and partial:lower()
  -- The tokens to raise, as a set: one may be picked for more than one reason (a word's first
  -- tokens with and without a space can be one token; two words can share a continuation), and
  -- each gets the bias once.
  local raise = {}
  -- In the middle of a preferred word, only its continuations are raised: starting another
  -- would leave it unfinished.
  if not (partial and unfinished(partial, words)) then
    for id in pairs(spaced) do raise[id] = true end
  end
  if partial then
    continue(raise, view, partial, words)
  else
    for id in pairs(bare) do raise[id] = true end
  end
  for id in pairs(raise) do view:bias(id, tide.options.bias) end
end

return plugin
