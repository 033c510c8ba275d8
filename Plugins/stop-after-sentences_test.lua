-- Tests of stop-after-sentences (tide plugins test Plugins/stop-after-sentences_test.lua): the reply
-- ends once it holds N sentences, counting "?!" and "..." as one ending and "3.14" as no ending.
describe("stop-after-sentences", function()
  it("stops after two sentences by default", function()
    local reply = harness.plugin():reply{ user = "Count.", pieces = { "One", ".", " Two", ".", " Three", "." } }
    assert.equals("One. Two.", reply.text)
    assert.equals("plugin:stop-after-sentences: 2 sentences", reply.stop_reason)
  end)

  it("stops after the number of sentences asked for", function()
    local reply = harness.plugin{ sentences = 1 }:reply{
      user = "Hi.", pieces = { "Hello", " there", ".", " How", " are", " you", "?" },
    }
    assert.equals("Hello there.", reply.text)
    assert.equals("plugin:stop-after-sentences: 1 sentence", reply.stop_reason)
  end)

  it("counts ?! and ... as one ending", function()
    local reply = harness.plugin():reply{ user = "Hi.", pieces = { "Really", "?!", " Well", "...", " no", "." } }
    assert.equals("Really?! Well...", reply.text)
  end)

  it("counts an ending before a quote or bracket", function()
    local reply = harness.plugin():reply{
      user = "Hi.", pieces = { "He", " said", " \"Go", ".\"", " (Then", " he", " left", ".)", " Later", "." },
    }
    assert.equals("He said \"Go.\" (Then he left.)", reply.text)
  end)

  it("does not end a sentence inside a decimal number", function()
    local reply = harness.plugin{ sentences = 1 }:reply{
      user = "Pi?", pieces = { "Pi", " is", " 3", ".", "14", " or", " so", ".", " Next", "." },
    }
    assert.equals("Pi is 3.14 or so.", reply.text)
  end)

  it("counts a stop after a digit once a space follows", function()
    -- "1912." could still become "1912.5", so the stop comes one token later.
    local reply = harness.plugin{ sentences = 1 }:reply{ user = "When?", pieces = { "In", " 1912", ".", " It", " sank", "." } }
    assert.equals("In 1912. It", reply.text)
    assert.equals("plugin:stop-after-sentences: 1 sentence", reply.stop_reason)
  end)

  it("counts ? ! and ... after a digit at once, for they cannot be a decimal point", function()
    for _, ending in ipairs({ "?", "!", "..." }) do
      local reply = harness.plugin{ sentences = 1 }:reply{ user = "When?", pieces = { "In", " 2024", ending, " Next", "." } }
      assert.equals("In 2024" .. ending, reply.text)
      assert.equals("plugin:stop-after-sentences: 1 sentence", reply.stop_reason)
    end
    local reply = harness.plugin{ sentences = 1 }:reply{ user = "How much?", pieces = { "Is", " it", " 3", ".5", "?", " No", "." } }
    assert.equals("Is it 3.5?", reply.text)
  end)

  it("lets a shorter reply end by itself", function()
    local reply = harness.plugin{ sentences = 3 }:reply{ user = "Hi.", pieces = { "Hello", ".", " Bye", "." } }
    assert.equals("Hello. Bye.", reply.text)
    assert.equals("eos", reply.stop_reason)
  end)

  it("refuses a count that is not a whole number", function()
    assert.has_error(function() harness.plugin{ sentences = "two" } end, "sentences must be a whole number, not 'two'")
  end)
end)
