-- Tests of ban-regex (tide plugins test Plugins/ban-regex_test.lua): text matching a Lua pattern
-- is taken back as soon as it forms and never shown. After a ban the scripted model goes on with
-- the piece after the banned one.
describe("ban-regex", function()
  it("takes back text that matches a pattern", function()
    local plugin = harness.plugin{ patterns = "%d%d%d%d" }
    local reply = plugin:reply{ user = "When?", pieces = { "The", " wall", " fell", " in", " 1989", " autumn", "." } }
    assert.equals("The wall fell in autumn.", reply.text)
    assert.equals("eos", reply.stop_reason)
    assert.same({ { hook = "ban-regex", text = " 1989", tokens = 1 } }, reply.rewinds)
  end)

  it("takes back a match spelt over several tokens", function()
    local reply = harness.plugin{ patterns = "%d%d%d%d" }:reply{ user = "When?", pieces = { "In", " 19", "89", "." } }
    assert.same({ { hook = "ban-regex", text = " 1989", tokens = 2 } }, reply.rewinds)
    assert.falsy(reply.text:find("1989", 1, true))
  end)

  it("ignores case unless told not to", function()
    local pieces = { "A", " COLOUR", " hue", "." }
    assert.equals("A hue.", harness.plugin{ patterns = "colou?r" }:reply{ user = "Which?", pieces = pieces }.text)
    local exact = harness.plugin{ patterns = "colou?r", ignore_case = false }
    assert.equals("A COLOUR hue.", exact:reply{ user = "Which?", pieces = pieces }.text)
  end)

  it("sees frontiers, so a pattern can ban whole words", function()
    local plugin = harness.plugin{ patterns = "%f[%w]cat%f[%W]" }
    local reply = plugin:reply{ user = "Pets?", pieces = { "A", " concat", " cat", " dog", "." } }
    assert.equals("A concat dog.", reply.text)
  end)

  it("takes several patterns, split by the separator", function()
    local pieces = { "A", " dog", " and", " a", " cat", " bird", "." }
    assert.equals("A and a bird.", harness.plugin{ patterns = "cat||dog" }:reply{ user = "Pets?", pieces = pieces }.text)
    local semicolons = harness.plugin{ patterns = "cat;dog", separator = ";" }
    assert.equals("A and a bird.", semicolons:reply{ user = "Pets?", pieces = pieces }.text)
  end)

  it("sees only matches that fit in the window", function()
    local pieces = { "Yes", " (", "a", " long", " aside", ")", " indeed", "." }
    local narrow = harness.plugin{ patterns = "%(.-%)", window = 8 }
    assert.equals("Yes (a long aside) indeed.", narrow:reply{ user = "Well?", pieces = pieces }.text)
    local wide = harness.plugin{ patterns = "%(.-%)" }
    assert.equals(" (a long aside)", wide:reply{ user = "Well?", pieces = pieces }.rewinds[1].text)
  end)

  it("ignores empty matches", function()
    local plugin = harness.plugin{ patterns = "%d*" }
    assert.same({}, plugin:reply{ user = "Hi.", pieces = { "No", " digits", "." } }.rewinds)
    assert.equals("No digits.", plugin:reply{ user = "Hi.", pieces = { "No", " 42", " digits", "." } }.text)
  end)

  it("refuses a pattern Lua cannot read", function()
    local plugin = harness.plugin{ patterns = "[a-z" }
    assert.has_error(function() plugin:reply{ user = "Hi.", pieces = { "Hello." } } end, 'the pattern "[a-z" is not a Lua pattern')
  end)

  it("refuses a window under one byte", function()
    local plugin = harness.plugin{ patterns = "%d", window = 0 }
    assert.has_error(function() plugin:reply{ user = "Hi.", pieces = { "Hello." } } end, "window must be at least 1 byte")
  end)

  it("needs something to ban", function()
    local plugin = harness.plugin{}
    assert.has_error(function() plugin:reply{ user = "Hi.", pieces = { "Hello." } } end, "nothing to ban")
  end)
end)
