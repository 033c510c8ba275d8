-- Tests of stop-on-repetition (tide plugins test Plugins/stop-on-repetition_test.lua): a reply whose
-- last words (or, without spaces, bytes) come back to back `repeats` times is ended there.

-- A scripted reply of one token per word, each with its leading space: "a b" gives { "a", " b" }.
local function words(text)
  local pieces = {}
  for piece in text:gmatch("%s*%S+") do pieces[#pieces + 1] = piece end
  return pieces
end

describe("stop-on-repetition", function()
  it("stops at the third copy of a phrase", function()
    local reply = harness.plugin():reply{
      user = "Tell me.", pieces = words("he saw them all, and he saw them all, and he saw them all, and he saw them"),
    }
    assert.equals("he saw them all, and he saw them all, and he saw them all, and", reply.text)
    assert.equals("plugin:stop-on-repetition: 3 repeats of 5 words", reply.stop_reason)
  end)

  it("lets a reply that does not loop end by itself", function()
    local reply = harness.plugin():reply{ user = "Hi.", pieces = words("a b a b c a b a b") }
    assert.equals("a b a b c a b a b", reply.text)
    assert.equals("eos", reply.stop_reason)
  end)

  it("compares words in any case", function()
    local reply = harness.plugin():reply{ user = "Hi.", pieces = words("Go on, go on, GO ON, go on.") }
    assert.equals("Go on, go on, GO ON,", reply.text)
  end)

  it("looks for spans of two words or more", function()
    local reply = harness.plugin():reply{ user = "Hi.", pieces = words("no no no no no no no") }
    assert.equals("no no no no no no", reply.text)
    assert.equals("plugin:stop-on-repetition: 3 repeats of 2 words", reply.stop_reason)
  end)

  it("stops at fewer copies with repeats", function()
    local reply = harness.plugin{ repeats = 2 }:reply{ user = "Hi.", pieces = words("I think so. I think so. I think so.") }
    assert.equals("I think so. I think so.", reply.text)
    assert.equals("plugin:stop-on-repetition: 2 repeats of 3 words", reply.stop_reason)
  end)

  it("looks for spans up to longest words", function()
    local pieces = words("a b c a b c a b c a b c")
    assert.equals("a b c a b c a b c", harness.plugin():reply{ user = "Hi.", pieces = pieces }.text)
    assert.equals("a b c a b c a b c a b c", harness.plugin{ longest = 2 }:reply{ user = "Hi.", pieces = pieces }.text)
  end)

  it("finds a loop in text without spaces", function()
    local reply = harness.plugin():reply{ user = "Say hello.", pieces = { "こんにちは", "こんにちは", "こんにちは", "こんにちは" } }
    assert.equals("こんにちはこんにちはこんにちは", reply.text)
    assert.equals("plugin:stop-on-repetition: 3 repeats of 15 bytes", reply.stop_reason)
  end)

  it("refuses repeats that are not a whole number", function()
    assert.has_error(function() harness.plugin{ repeats = "many" } end, "repeats must be a whole number, not 'many'")
  end)
end)
