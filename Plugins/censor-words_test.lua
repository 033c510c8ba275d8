-- Tests of censor-words (tide plugins test Plugins/censor-words_test.lua): whole words are masked
-- in any case as the reply streams, a word split over tokens too; the history keeps the masks.
describe("censor-words", function()
  it("masks the default words", function()
    local reply = harness.plugin{}:reply{ user = "Well?", pieces = { "Oh", " darn", ",", " it", " broke", "." } }
    assert.equals("Oh ****, it broke.", reply.text)
    assert.equals("Oh ****, it broke.", reply.stored)
    assert.equals("Oh darn, it broke.", reply.raw)
  end)

  it("masks a word in any case", function()
    local reply = harness.plugin{}:reply{ user = "Well?", pieces = { "DARN", " it", ",", " Heck", "!" } }
    assert.equals("**** it, ****!", reply.text)
  end)

  it("leaves words that only contain one alone", function()
    local reply = harness.plugin{}:reply{ user = "Well?", pieces = { "Darning", " socks", "." } }
    assert.equals("Darning socks.", reply.text)
  end)

  it("counts an underscore as part of a word", function()
    local reply = harness.plugin{}:reply{
      user = "Well?", pieces = { "darn", "_it", " and", " my_", "darn", " but", " darn", "!", " darn" },
    }
    assert.equals("darn_it and my_darn but ****! ****", reply.text)
  end)

  it("masks a word spelt over several tokens", function()
    local reply = harness.plugin{}:reply{ user = "Well?", pieces = { "Oh", " he", "ck", "!" } }
    assert.equals("Oh ****!", reply.text)
  end)

  it("masks a word that ends the reply", function()
    local reply = harness.plugin{}:reply{ user = "Well?", pieces = { "What", " the", " heck" } }
    assert.equals("What the ****", reply.text)
  end)

  it("takes its own words and mask", function()
    local plugin = harness.plugin{ words = "rain, Cloud", mask = "#" }
    local reply = plugin:reply{ user = "Weather?", pieces = { "Rain", " and", " clouds", " and", " a", " cloud", "." } }
    assert.equals("#### and clouds and a #####.", reply.text)
  end)

  it("refuses an option it does not take", function()
    assert.has_error(function() harness.plugin{ word = "rain" } end, "unknown option 'word'")
  end)
end)
