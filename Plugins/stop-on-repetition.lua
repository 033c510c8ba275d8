-- stop-on-repetition: end a reply that has started to loop.
--
-- Looks at the words of the reply: if its last `span` words (for any span from 2 to
-- `longest` words) were also the `repeats - 1` spans just before them, the reply is going
-- round in circles ("he saw them all, and he saw them all, and he saw them all"). Text
-- without spaces (Japanese, Chinese, a run of symbols) is looked at byte by byte the same way:
-- a piece of 8 bytes or more (up to 16 times `longest`) repeated back to back is a loop too.
--
-- Options:  repeats = 3    how many back-to-back copies make a loop
--           longest = 16   the longest repeated span to look for, in words
-- Example:  tide generate --plugin stop-on-repetition --max-tokens 400 "Say hello in Japanese."
local plugin = {
  name = "stop-on-repetition",
  version = "1.0",
  description = "Stop when the reply repeats itself.",
  options = { repeats = 3, longest = 16 },
}

local function words_of(text)
  local words = {}
  for word in text:gmatch("%S+") do words[#words + 1] = word:lower() end
  return words
end

local function repeats_at_end(words, span, copies)
  local count = #words
  if count < span * copies then return false end
  for copy = 1, copies - 1 do
    for i = 0, span - 1 do
      if words[count - i] ~= words[count - i - copy * span] then return false end
    end
  end
  return true
end

-- Whether the last `length` bytes of `text` were also the `copies - 1` pieces just before them.
local function bytes_repeat_at_end(text, length, copies)
  local count = #text
  if count < length * copies then return false end
  -- This runs on every token for every length: one byte compared rules out almost all of them.
  if text:byte(count) ~= text:byte(count - length) then return false end
  local last = text:sub(count - length + 1)
  for copy = 1, copies - 1 do
    local finish = count - copy * length
    if text:sub(finish - length + 1, finish) ~= last then return false end
  end
  return true
end

function plugin.should_stop(reply)
  local words = words_of(reply.text)
  local copies = tide.options.repeats
  for span = 2, tide.options.longest do
    if repeats_at_end(words, span, copies) then
      return true, copies .. " repeats of " .. span .. " words"
    end
  end
  for length = 8, tide.options.longest * 16 do
    if bytes_repeat_at_end(reply.text, length, copies) then
      return true, copies .. " repeats of " .. length .. " bytes"
    end
  end
end

return plugin
