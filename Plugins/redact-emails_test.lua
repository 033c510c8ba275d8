-- Tests of redact-emails (tide plugins test Plugins/redact-emails_test.lua): e-mail addresses and
-- phone numbers are masked as the reply streams, even spelt over several tokens, and in tool results.
describe("redact-emails", function()
  it("masks an address spelt over several tokens", function()
    local reply = harness.plugin():reply{
      user = "Contact?", pieces = { "Write", " to", " jane", ".doe", "@", "example", ".com", " today." },
    }
    assert.equals("Write to [redacted] today.", reply.text)
    assert.equals("Write to [redacted] today.", reply.stored)
    assert.equals("Write to jane.doe@example.com today.", reply.raw)
  end)

  it("masks a phone number with spaces, dashes and brackets", function()
    local reply = harness.plugin():reply{
      user = "Call?", pieces = { "Call", " +1", " (555)", " 123", "-", "4567", " now." },
    }
    assert.equals("Call [redacted] now.", reply.text)
  end)

  it("masks what is held back when the reply ends", function()
    local reply = harness.plugin():reply{ user = "Mail?", pieces = { "Mail", " me", " at", " a", "@b", ".co" } }
    assert.equals("Mail me at [redacted]", reply.text)
  end)

  it("leaves numbers of fewer than 7 digits", function()
    local reply = harness.plugin():reply{ user = "Where?", pieces = { "Room", " 12", "-", "34", ", floor", " 3", " in", " 2024" } }
    assert.equals("Room 12-34, floor 3 in 2024", reply.text)
  end)

  it("masks phone numbers written in groups or after a +", function()
    local reply = harness.plugin():reply{
      user = "Numbers?",
      pieces = { "Try", " 555", "-123", "-4567", ", (555)", " 123", "-4567", ", +1", " 555", " 123", " 4567",
                 ", 555", ".123", ".4567", ", 555", "-1234", " or", " +1555", "1234567", "." },
    }
    assert.equals("Try [redacted], [redacted], [redacted], [redacted], [redacted] or [redacted].", reply.text)
  end)

  it("leaves a bare run of digits, such as an order number", function()
    local reply = harness.plugin():reply{
      user = "Order?", pieces = { "Order", " 1234567", " (ID", " 20261202)", " costs", " 1234567", " dollars", " 7654321" },
    }
    assert.equals("Order 1234567 (ID 20261202) costs 1234567 dollars 7654321", reply.text)
    local result = harness.plugin():tool_result{ name = "lookup", arguments = {}, content = "orders:\n1234567\n7654321\ncall 555-123-4567" }
    assert.same({ content = "orders:\n1234567\n7654321\ncall [redacted]" }, result)
  end)

  it("uses the mask given", function()
    local reply = harness.plugin{ mask = "<hidden>" }:reply{ user = "Mail?", pieces = { "Mail", " jo@ex.com", " now" } }
    assert.equals("Mail <hidden> now", reply.text)
  end)

  it("masks only what is switched on", function()
    local pieces = { "Mail", " jo@ex.com", " or", " call", " 555-123-4567" }
    assert.equals("Mail jo@ex.com or call [redacted]", harness.plugin{ emails = false }:reply{ user = "?", pieces = pieces }.text)
    assert.equals("Mail [redacted] or call 555-123-4567", harness.plugin{ phones = false }:reply{ user = "?", pieces = pieces }.text)
  end)

  it("masks tool results", function()
    local result = harness.plugin():tool_result{
      name = "lookup", arguments = { who = "Jane" }, content = "Jane: jane@corp.io, +44 20 7946 0958",
    }
    assert.same({ content = "Jane: [redacted], [redacted]" }, result)
  end)

  it("leaves tool results with results = false", function()
    local result = harness.plugin{ results = false }:tool_result{ name = "lookup", arguments = {}, content = "jane@corp.io" }
    assert.same({}, result)
  end)

  it("refuses a switch that is not a boolean", function()
    assert.has_error(function() harness.plugin{ phones = "sometimes" } end, "phones must be true or false, not 'sometimes'")
  end)
end)
