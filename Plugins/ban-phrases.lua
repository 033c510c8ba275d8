-- ban-phrases: keep phrases out of the reply by taking them back as they form.
--
-- After each token the plugin looks for a banned phrase in the end of the reply, in any letter
-- case (ASCII), starting at a word boundary and matched as a prefix ("paris" also keeps out
-- "parisian"). When one has formed, it takes the reply back to the token where the phrase
-- began (tide.rewind) and bans that token there, so the model says something else from that
-- token on, instead of being forced to finish a word it has begun. Nothing taken back is shown:
-- Tide holds back the end of the reply until no rewind can reach it.
-- slop=true adds a built-in list of 272 phrases that small models overuse ("delve into",
-- "a testament to", "tapestry", ...). Needs a local model (a server cannot take tokens back).
--
-- Options:  phrases = ""     comma-separated phrases to ban
--           slop = false     also ban the built-in list
-- Example:  tide generate --temperature 0 --plugin 'ban-phrases phrases=Paris' "What is the capital of France?"
local plugin = {
  name = "ban-phrases",
  version = "1.0",
  description = "Take back banned phrases as they form, and make the model choose again.",
  options = { phrases = "", slop = false },
}

local SLOP = {
  "a testament to", "testament to the", "delve into", "delves into", "delving into", "tapestry",
  "rich tapestry", "intricate tapestry", "vibrant tapestry", "a symphony of", "symphony of",
  "a dance of", "intricate dance", "in the realm of", "the realm of",
  "navigating the complexities", "navigate the complexities", "the complexities of",
  "it's important to note", "it is important to note", "it's worth noting", "it is worth noting",
  "it's crucial to", "it is crucial to", "it's essential to", "it is essential to",
  "in today's fast-paced world", "in today's digital age", "in today's world",
  "in this day and age", "ever-evolving landscape", "ever-changing landscape", "the landscape of",
  "a beacon of", "beacon of hope", "shivers down", "shiver down", "sent shivers", "a shiver ran",
  "barely above a whisper", "voice barely above", "her voice barely", "his voice barely",
  "a mix of", "a mixture of", "eyes sparkling with", "eyes sparkled with", "eyes glinting",
  "twinkle in her eye", "twinkle in his eye", "with a mischievous", "mischievous glint",
  "mischievous grin", "a wry smile", "a knowing smile", "smile playing on", "played on her lips",
  "played on his lips", "maybe, just maybe", "little did they know", "little did she know",
  "little did he know", "unbeknownst to", "the air was thick", "air thick with",
  "hung heavy in the air", "heavy in the air", "palpable tension", "the tension was palpable",
  "a sense of", "an air of", "could not help but", "couldn't help but", "can't help but",
  "found myself", "found herself", "found himself", "the weight of", "weight of the world",
  "whispered softly", "murmured softly", "a flicker of", "flicker of hope", "a glimmer of",
  "glimmer of hope", "a pang of", "a wave of", "washed over her", "washed over him",
  "washed over me", "sent a jolt", "a jolt of", "testament of", "stark contrast",
  "in stark contrast", "it's not just about", "is not just about", "not only but also",
  "embark on a journey", "embark on", "embarked on a journey", "a journey of",
  "journey of self-discovery", "unwavering commitment", "unwavering dedication",
  "unwavering support", "steadfast commitment", "paramount importance", "of paramount importance",
  "plays a crucial role", "play a crucial role", "plays a pivotal role", "play a pivotal role",
  "pivotal role", "crucial role in", "a pivotal moment", "pivotal moment", "a game changer",
  "game-changer", "game changer", "cutting-edge", "state-of-the-art", "groundbreaking",
  "revolutionize", "revolutionizing", "unlock the potential", "unlock the secrets",
  "unleash the power", "harness the power", "the power of", "elevate your",
  "take it to the next level", "to the next level", "seamless integration", "seamlessly integrate",
  "seamlessly", "in conclusion", "to summarize", "in summary", "all in all",
  "at the end of the day", "when it comes to", "first and foremost", "last but not least",
  "without further ado", "needless to say", "it goes without saying", "as an ai language model",
  "as an ai", "i cannot fulfill", "i hope this helps", "i hope this email finds you well",
  "hope this email finds you well", "feel free to", "don't hesitate to", "do not hesitate to",
  "let me know if you have any", "i'd be happy to", "i would be happy to", "happy to help",
  "great question", "excellent question", "what a great question", "certainly!", "absolutely!",
  "of course!", "dive deep", "deep dive", "dive into", "diving into", "let's dive in",
  "let's delve", "the intricacies of", "intricacies", "multifaceted", "nuanced understanding",
  "a nuanced", "holistic approach", "a holistic", "synergy", "synergies", "leverage the",
  "leveraging the", "robust and scalable", "a robust", "foster a sense", "fostering a sense",
  "fosters a sense", "foster collaboration", "resonate with", "resonates with", "resonated with",
  "bustling city", "bustling streets", "bustling metropolis", "a bustling", "nestled in",
  "nestled between", "nestled among", "hidden gem", "a hidden gem", "breathtaking views",
  "breathtaking", "awe-inspiring", "captivating", "enchanting", "mesmerizing", "an unforgettable",
  "unforgettable experience", "whimsical", "ethereal", "otherworldly", "kaleidoscope of",
  "a kaleidoscope", "cacophony of", "a cacophony", "labyrinth of", "a labyrinth", "tendrils of",
  "a testament", "intertwined", "interwoven", "the fabric of", "woven into", "weaving together",
  "bridging the gap", "bridge the gap", "paving the way", "pave the way", "a stark reminder",
  "serves as a reminder", "serves as a testament", "stands as a testament", "a reminder that",
  "a true testament", "the dawn of", "a new era", "ushering in", "usher in", "in the heart of",
  "at the heart of", "the heart of the", "heart pounding", "her heart pounded",
  "his heart pounded", "heart raced", "pulse quickened", "breath hitched", "her breath caught",
  "his breath caught", "a beat of silence", "the silence stretched", "silence hung",
  "time seemed to stand still", "time stood still", "the world seemed to", "every fiber of",
  "fiber of her being", "fiber of his being", "a newfound", "newfound sense", "a renewed sense",
  "with renewed vigor", "an unspoken", "unspoken understanding", "a silent promise",
  "the journey ahead", "what lies ahead", "only time will tell", "the possibilities are endless",
  "endless possibilities", "a world of possibilities",
}

-- Bytes the token that completes a phrase may add after it.
local SLACK = 32

-- The banned phrases in lower case: those starting with a letter or digit indexed by their
-- first two bytes, the others in a list; and the longest length.
local function banned()
  local state = tide.state
  if state.index then return state end
  local index, loose, longest, count = {}, {}, 0, 0
  local function add(phrase)
    phrase = phrase:match("^%s*(.-)%s*$"):lower()
    if phrase == "" then return end
    if phrase:match("^%w") then
      local key = phrase:sub(1, 2)
      index[key] = index[key] or {}
      table.insert(index[key], phrase)
    else
      loose[#loose + 1] = phrase
    end
    longest, count = math.max(longest, #phrase), count + 1
  end
  for phrase in tide.options.phrases:gmatch("[^,]+") do add(phrase) end
  if tide.options.slop then
    for _, phrase in ipairs(SLOP) do add(phrase) end
  end
  if count == 0 then error("nothing to ban: give phrases (phrases=\"Paris,London\") or slop=true", 0) end
  state.index, state.loose, state.longest = index, loose, longest
  return state
end

-- How far back the plugin may take text: the longest phrase and the token that completes it.
function plugin.rewind_window()
  return banned().longest + SLACK
end

-- Where, in `tail` (lower case), a banned phrase starts; `before` is the byte before the tail.
local function find(tail, before, state)
  for start in tail:gmatch("()%w") do
    local previous = start > 1 and tail:sub(start - 1, start - 1) or before
    -- A letter or digit, or a byte of a UTF-8 character, before it: not a word start.
    if not previous:match("[%w\128-\255]") then
      -- Phrases of two bytes or more are under their first two; one-byte phrases under one.
      for _, key in ipairs({ tail:sub(start, start + 1), tail:sub(start, start) }) do
        for _, phrase in ipairs(state.index[key] or {}) do
          if tail:sub(start, start + #phrase - 1) == phrase then return start end
        end
      end
    end
  end
  for _, phrase in ipairs(state.loose) do
    local start = tail:find(phrase, 1, true)
    if start then return start end
  end
end

function plugin.should_stop(reply)
  local state = banned()
  local text = reply.text
  local from = math.max(1, #text - state.longest - SLACK + 1)
  local start = find(text:sub(from):lower(), text:sub(from - 1, from - 1), state)
  if start then tide.rewind(from + start - 1) end
end

return plugin
