-- Tests of ban-phrases (tide plugins test Plugins/ban-phrases_test.lua): a banned phrase is taken
-- back as soon as it forms and never shown. After a ban the scripted model goes on with the piece
-- after the banned one, so a reply reads as if the phrase's first token had been left out.
describe("ban-phrases", function()
  it("takes back a banned phrase", function()
    local reply = harness.plugin{ phrases = "Paris" }:reply{ user = "Where to?", pieces = { "Visit", " Paris", " Rome", "." } }
    assert.equals("Visit Rome.", reply.text)
    assert.equals("eos", reply.stop_reason)
    assert.same({ { hook = "ban-phrases", text = " Paris", tokens = 1 } }, reply.rewinds)
  end)

  it("leaves a reply without the phrase alone", function()
    local reply = harness.plugin{ phrases = "Paris" }:reply{ user = "Where to?", pieces = { "Visit", " Rome", "." } }
    assert.equals("Visit Rome.", reply.text)
    assert.same({}, reply.rewinds)
  end)

  it("takes back a phrase spelt over several tokens", function()
    local plugin = harness.plugin{ phrases = "a testament to" }
    local reply = plugin:reply{ user = "Why?", pieces = { "It", " is", " a", " testament", " to", " skill", "." } }
    -- Back to " a", which is banned there; the script goes on with " testament".
    assert.equals("It is testament to skill.", reply.text)
    assert.same({ { hook = "ban-phrases", text = " a testament to", tokens = 3 } }, reply.rewinds)
  end)

  it("matches in any case, and as the start of a word", function()
    local reply = harness.plugin{ phrases = "paris" }:reply{ user = "Food?", pieces = { "I", " love", " PARISIAN", " food", "." } }
    assert.equals("I love food.", reply.text)
    assert.equals(" PARISIAN", reply.rewinds[1].text)
  end)

  it("does not match inside a word", function()
    local reply = harness.plugin{ phrases = "paris" }:reply{ user = "And?", pieces = { "A", " comparison", "." } }
    assert.equals("A comparison.", reply.text)
    assert.same({}, reply.rewinds)
  end)

  it("takes several phrases, separated by commas", function()
    local plugin = harness.plugin{ phrases = "Paris, London" }
    local reply = plugin:reply{ user = "Where to?", pieces = { "Visit", " London", " Paris", " Rome", "." } }
    assert.equals("Visit Rome.", reply.text)
    assert.equals(2, #reply.rewinds)
  end)

  it("bans its built-in list with slop=true", function()
    local pieces = { "A", " groundbreaking", " new", " idea", "." }
    assert.equals("A new idea.", harness.plugin{ slop = true }:reply{ user = "Pitch?", pieces = pieces }.text)
    assert.equals("A groundbreaking new idea.", harness.plugin{ phrases = "Paris" }:reply{ user = "Pitch?", pieces = pieces }.text)
  end)

  it("needs something to ban", function()
    local plugin = harness.plugin{}
    assert.has_error(function() plugin:reply{ user = "Hi.", pieces = { "Hello." } } end, "nothing to ban")
  end)

  it("refuses a slop that is not true or false", function()
    assert.has_error(function() harness.plugin{ slop = "maybe" } end, "slop must be true or false")
  end)
end)
