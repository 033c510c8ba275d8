-- stop-after-sentences: end the reply once it holds N sentences.
--
-- A sentence ends with . ! or ? (repeats allowed, "?!" or "..."), at the end of the text or
-- before a space, quote or bracket. A lone full stop right after a digit counts only once
-- something other than a digit follows it, so "3.14" is not two sentences; "2024?", "2024!" and
-- "2024..." end one at once.
--
-- Options:  sentences = 2   how many sentences to allow
-- Example:  tide generate --plugin 'stop-after-sentences sentences=1' "Describe the sea."
local plugin = {
  name = "stop-after-sentences",
  version = "1.0",
  description = "Stop once the reply has N sentences.",
  options = { sentences = 2 },
}

local function count_sentences(text)
  local count = 0
  for start, finish in text:gmatch("()[%.!?]+()") do
    local before, after = text:sub(start - 1, start - 1), text:sub(finish, finish)
    local decimal_point = before:match("%d") and text:sub(start, finish - 1) == "."
    if (after == "" and not decimal_point) or after:match("[%s\"')%]]") then
      count = count + 1
    end
  end
  return count
end

function plugin.should_stop(reply)
  local wanted = tide.options.sentences
  local count = count_sentences(reply.text)
  if count >= wanted then
    return true, count .. (count == 1 and " sentence" or " sentences")
  end
end

return plugin
