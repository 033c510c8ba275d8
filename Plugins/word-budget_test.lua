-- Tests of word-budget (tide plugins test Plugins/word-budget_test.lua): the reply ends once it
-- has used its budget of words, and not before.
describe("word-budget", function()
  it("ends the reply at its budget of words", function()
    local plugin = harness.plugin{ words = 3 }
    local reply = plugin:reply{ user = "Count.", pieces = { "one", " two", " three", " four", " five" } }
    assert.equals("one two three", reply.text)
    assert.equals("plugin:word-budget: 3 words", reply.stop_reason)
  end)

  it("lets a shorter reply end by itself", function()
    local reply = harness.plugin{ words = 10 }:reply{ user = "Hi.", pieces = { "Hello", " there." } }
    assert.equals("Hello there.", reply.text)
    assert.equals("eos", reply.stop_reason)
  end)

  it("refuses an option it does not take", function()
    assert.has_error(function() harness.plugin{ sentences = 2 } end, "unknown option 'sentences'")
  end)
end)
