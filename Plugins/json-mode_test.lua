-- Tests of json-mode (tide plugins test Plugins/json-mode_test.lua): a message that starts with the
-- prefix loses it and sets the turn's reply format; other messages are left alone. (The scripted
-- model does not follow a format, so the tests check the prompt the model receives.)
local function last(reply)
  local messages = reply.prompt.messages
  return messages[#messages].content
end

describe("json-mode", function()
  it("asks for JSON when the message starts with json:", function()
    local reply = harness.plugin{}:reply{ user = "json: the capital of France", pieces = { '{"capital": "Paris"}' } }
    assert.equals("json", reply.prompt.params.format)
    assert.equals("the capital of France\nReply with a JSON object.", last(reply))
  end)

  it("leaves other messages alone", function()
    local plugin = harness.plugin{}
    local reply = plugin:reply{ user = "What is the capital of France?", pieces = { "Paris." } }
    assert.is_nil(reply.prompt.params.format)
    assert.equals("What is the capital of France?", last(reply))
    -- The prefix is matched as written.
    assert.is_nil(plugin:reply{ user = "JSON: France", pieces = { "Paris." } }.prompt.params.format)
  end)

  it("keeps the user's own words in the history", function()
    local plugin = harness.plugin{}
    plugin:reply{ user = "json: the capital of France", pieces = { '{"capital": "Paris"}' } }
    local reply = plugin:reply{ user = "Thanks.", pieces = { "You're welcome." } }
    assert.equals("json: the capital of France", reply.prompt.messages[1].content)
    assert.is_nil(reply.prompt.params.format)
  end)

  it("asks for an object with exactly the keys given, in order", function()
    local plugin = harness.plugin{ keys = "country, capital" }
    local schema = plugin:reply{ user = "json: France", pieces = { "{}" } }.prompt.params.format.json_schema
    assert.matches('"properties":{"country":{"type":"string",.*},"capital":{"type":"string",', schema)
    assert.matches('"required":%["country","capital"%]', schema)
    assert.matches('"additionalProperties":false', schema)
  end)

  it("takes another prefix", function()
    local plugin = harness.plugin{ prefix = "JSON>" }
    local reply = plugin:reply{ user = "JSON> the capital of France", pieces = { "{}" } }
    assert.equals("json", reply.prompt.params.format)
    assert.equals("the capital of France\nReply with a JSON object.", last(reply))
  end)

  it("refuses a key that is not a name", function()
    local plugin = harness.plugin{ keys = "first-name" }
    assert.has_error(function() plugin:reply{ user = "json: me", pieces = { "{}" } } end,
      "key 'first-name' must be letters, digits and _")
  end)
end)
