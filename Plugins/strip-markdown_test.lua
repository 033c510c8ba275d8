-- Tests of strip-markdown (tide plugins test Plugins/strip-markdown_test.lua): * and ` go, so do
-- heading #s at a line start (not in code blocks), and list markers become bullets.
describe("strip-markdown", function()
  it("drops emphasis and code markers", function()
    local reply = harness.plugin():reply{
      user = "Hi.", pieces = { "This", " is", " **", "bold", "**", " and", " `", "code", "`." },
    }
    assert.equals("This is bold and code.", reply.text)
    assert.equals("This is **bold** and `code`.", reply.raw)
  end)

  it("keeps the plain text in the history", function()
    local reply = harness.plugin():reply{ user = "Hi.", pieces = { "*Hi*", " there" } }
    assert.equals("Hi there", reply.stored)
  end)

  it("drops heading marks at the start of a line", function()
    local reply = harness.plugin():reply{ user = "Hi.", pieces = { "# Intro", "\n", "Text", "\n", "## Usage", "\n", "Run it." } }
    assert.equals("Intro\nText\nUsage\nRun it.", reply.text)
  end)

  it("keeps # inside a line", function()
    local reply = harness.plugin():reply{ user = "Hi.", pieces = { "C#", " is", " #1" } }
    assert.equals("C# is #1", reply.text)
  end)

  it("keeps # in a code block, dropping its fences", function()
    local reply = harness.plugin():reply{
      user = "Code?", pieces = { "```", "\n", "# a comment", "\n", "x = 1", "\n", "```", "\n", "# Done" },
    }
    assert.equals("\n# a comment\nx = 1\n\nDone", reply.text)
  end)

  it("keeps underscores", function()
    local reply = harness.plugin():reply{ user = "Hi.", pieces = { "snake_case", " and", " _this_" } }
    assert.equals("snake_case and _this_", reply.text)
  end)

  it("turns list markers into bullets", function()
    local reply = harness.plugin():reply{ user = "Fruit?", pieces = { "Fruit:", "\n", "- apple", "\n", "* pear", "\n", "  - wild pear" } }
    assert.equals("Fruit:\n• apple\n• pear\n  • wild pear", reply.text)
  end)

  it("keeps - markers with bullets = false", function()
    local reply = harness.plugin{ bullets = false }:reply{ user = "Fruit?", pieces = { "Fruit:", "\n", "- apple" } }
    assert.equals("Fruit:\n- apple", reply.text)
  end)

  it("refuses a bullets that is not a boolean", function()
    assert.has_error(function() harness.plugin{ bullets = "sure" } end, "bullets must be true or false, not 'sure'")
  end)
end)
