-- Tests of stop-on-pattern (tide plugins test Plugins/stop-on-pattern_test.lua): the reply ends as
-- soon as its text matches a Lua pattern (or plain text), and the text that matched stays shown.
describe("stop-on-pattern", function()
  it("stops once the pattern matches, keeping the match", function()
    local plugin = harness.plugin{ pattern = "%d%d%d%d" }
    local reply = plugin:reply{ user = "When?", pieces = { "It", " sank", " in", " 19", "12", " after", " midnight" } }
    assert.equals("It sank in 1912", reply.text)
    assert.equals("plugin:stop-on-pattern: matched %d%d%d%d", reply.stop_reason)
  end)

  it("lets a reply that never matches end by itself", function()
    local reply = harness.plugin{ pattern = "%d+" }:reply{ user = "Hi.", pieces = { "Hello", " there." } }
    assert.equals("Hello there.", reply.text)
    assert.equals("eos", reply.stop_reason)
  end)

  it("reads the pattern as a Lua pattern", function()
    -- "1+1" means one or more 1s, then a 1: "11" already matches.
    local reply = harness.plugin{ pattern = "1+1" }:reply{ user = "Sum?", pieces = { "11", " and", " 1", "+", "1" } }
    assert.equals("11", reply.text)
  end)

  it("matches plain text with plain = true", function()
    local plugin = harness.plugin{ pattern = "1+1", plain = true }
    local reply = plugin:reply{ user = "Sum?", pieces = { "11", " and", " 1", "+", "1", " is", " 2" } }
    assert.equals("11 and 1+1", reply.text)
    assert.equals("plugin:stop-on-pattern: matched 1+1", reply.stop_reason)
  end)

  it("anchors ^ at the start of the reply", function()
    local plugin = harness.plugin{ pattern = "^Sure" }
    assert.equals("Yes, Sure thing", plugin:reply{ user = "Ok?", pieces = { "Yes", ",", " Sure", " thing" } }.text)
    assert.equals("Sure", plugin:reply{ user = "Ok?", pieces = { "Sure", " thing" } }.text)
  end)

  it("fails a reply when no pattern is set", function()
    local plugin = harness.plugin()
    assert.has_error(function() plugin:reply{ user = "Hi.", pieces = { "Hello" } } end, "set the pattern option")
  end)

  it("fails a reply on a malformed pattern", function()
    local plugin = harness.plugin{ pattern = "[a" }
    assert.has_error(function() plugin:reply{ user = "Hi.", pieces = { "Hello" } } end, "malformed pattern (missing ']')")
  end)

  it("refuses a plain that is not a boolean", function()
    assert.has_error(function() harness.plugin{ pattern = "x", plain = "maybe" } end, "plain must be true or false, not 'maybe'")
  end)
end)
