-- Tests of persona (tide plugins test Plugins/persona_test.lua): every turn's system prompt is
-- set from a preset or the system option, while the history keeps what the user said.
local PIRATE = "You are a jolly pirate. Answer every question in pirate speak, with plenty of 'Arr'."

describe("persona", function()
  it("makes the model a pirate by default", function()
    local reply = harness.plugin{}:reply{ user = "Hello.", pieces = { "Arr!" } }
    assert.same({ { role = "system", content = PIRATE }, { role = "user", content = "Hello." } }, reply.prompt.messages)
  end)

  it("takes another preset", function()
    local reply = harness.plugin{ persona = "terse" }:reply{ user = "Hello.", pieces = { "Hi." } }
    assert.equals("You are terse. Answer in as few words as possible, without pleasantries.", reply.prompt.messages[1].content)
  end)

  it("prefers a system prompt of your own to the preset", function()
    local plugin = harness.plugin{ persona = "poet", system = "You are a lighthouse keeper." }
    local reply = plugin:reply{ user = "Hello.", pieces = { "Ahoy." } }
    assert.equals("You are a lighthouse keeper.", reply.prompt.messages[1].content)
  end)

  it("replaces the session's system prompt", function()
    local reply = harness.plugin{}:reply{ system = "Be brief.", user = "Hello.", pieces = { "Arr!" } }
    assert.same({ { role = "system", content = PIRATE }, { role = "user", content = "Hello." } }, reply.prompt.messages)
  end)

  it("sets the system prompt again on every turn", function()
    local plugin = harness.plugin{}
    plugin:reply{ user = "Hello.", pieces = { "Arr!" } }
    local reply = plugin:reply{ user = "Goodbye.", pieces = { "Arr." } }
    assert.same({
      { role = "system", content = PIRATE },
      { role = "user", content = "Hello." },
      { role = "assistant", content = "Arr!" },
      { role = "user", content = "Goodbye." },
    }, reply.prompt.messages)
  end)

  it("refuses a persona it does not know", function()
    local plugin = harness.plugin{ persona = "ninja" }
    assert.has_error(function() plugin:reply{ user = "Hello.", pieces = { "Hi." } } end,
      "unknown persona 'ninja'; choose one of pirate, poet, shakespeare, teacher, terse")
  end)
end)
