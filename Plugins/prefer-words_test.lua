-- Tests of prefer-words (tide plugins test Plugins/prefer-words_test.lua): on_logits raises the
-- tokens that start a preferred word and, once one is begun, only those that finish it. Each test
-- gives one step's candidates and reads back the biases the plugin set.

-- One step's candidates, best first. The harness's tokenizer knows only the texts a test names,
-- so every spelling the plugin looks up (" ocean", "ocean", " Ocean", "Ocean") is among them.
local scores = {
  { id = 1, text = " the", logit = 5 },
  { id = 2, text = "ea", logit = 4 },
  { id = 3, text = " ocean", logit = 1 },
  { id = 4, text = " Ocean", logit = 0.5 },
  { id = 5, text = "ocean", logit = 0 },
  { id = 6, text = "Ocean", logit = 0 },
  { id = 7, text = "ean", logit = -1 },
}

-- The ids a step raised, in order.
local function raised(step)
  local ids = {}
  for _, change in ipairs(step.biased) do ids[#ids + 1] = change.id end
  return ids
end

describe("prefer-words", function()
  it("raises the tokens that start the word after another word", function()
    local step = harness.plugin{ words = "ocean" }:logits{ scores = scores, text = "We sailed across the" }
    assert.same({ { id = 3, delta = 3 }, { id = 4, delta = 3 } }, step.biased)
    assert.same({}, step.banned)
  end)

  it("raises the spellings without a space at the start of the reply", function()
    local step = harness.plugin{ words = "ocean" }:logits{ scores = scores, text = "" }
    assert.same({ 3, 4, 5, 6 }, raised(step))
  end)

  it("raises only what finishes a word it has begun", function()
    local step = harness.plugin{ words = "ocean" }:logits{ scores = scores, text = "We sailed across the oc" }
    assert.same({ 2, 7 }, raised(step))
  end)

  it("starts on new words again once the word is finished", function()
    local step = harness.plugin{ words = "ocean" }:logits{ scores = scores, text = "We sailed across the ocean" }
    assert.same({ 3, 4 }, raised(step))
  end)

  it("adds the bias given", function()
    local step = harness.plugin{ words = "ocean", bias = 10 }:logits{ scores = scores, text = "We sailed across the" }
    assert.same({ { id = 3, delta = 10 }, { id = 4, delta = 10 } }, step.biased)
  end)

  it("checks only the best depth candidates, but raises the rest of the word anyway", function()
    -- "ea" (second best) is not checked; "ean", the rest of "ocean" after "oc", is raised.
    local step = harness.plugin{ words = "ocean", depth = 1 }:logits{ scores = scores, text = "We sailed across the oc" }
    assert.same({ { id = 7, delta = 3 } }, step.biased)
  end)

  it("raises the rest of a begun word once when it is also a candidate", function()
    -- "ean" is both the first token of the rest of "ocean" after "oc" and a candidate that
    -- continues it: one bias, not two.
    local step = harness.plugin{ words = "ocean", bias = 2.5 }:logits{
      scores = {
        { id = 1, text = "the", logit = 5 },
        { id = 2, text = " oc", logit = 4 },
        { id = 3, text = "ean", logit = 3 },
        { id = 4, text = " ocean", logit = 2 },
      },
      text = "the oc",
    }
    assert.same({ { id = 3, delta = 2.5 } }, step.biased)
  end)

  it("raises a continuation two words share once", function()
    local step = harness.plugin{ words = "ocean,oceanic" }:logits{ scores = scores, text = "We sailed across the oc" }
    assert.same({ { id = 2, delta = 3 }, { id = 7, delta = 3 } }, step.biased)
  end)

  it("needs words", function()
    local plugin = harness.plugin{}
    assert.has_error(function() plugin:logits{ scores = scores } end, "set the words option")
  end)

  it("refuses a bias that is not a number", function()
    assert.has_error(function() harness.plugin{ words = "ocean", bias = "lots" } end, "bias must be a number")
  end)
end)
