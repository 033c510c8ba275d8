-- Tests of units (tide plugins test Plugins/units_test.lua): the convert tool converts between units
-- of one kind, to `digits` significant digits, and tells the model when it cannot.

-- Calls the tool as the model would.
local function convert(plugin, value, from, to)
  return plugin:run_tool{ name = "convert", arguments = { value = value, from = from, to = to } }
end

describe("units", function()
  it("converts between units of a kind", function()
    local plugin = harness.plugin()
    assert.same({ content = "6.213711922 mi" }, convert(plugin, 10, "km", "mi"))
    assert.same({ content = "453.59237 g" }, convert(plugin, 1, "lb", "g"))
    assert.same({ content = "120 min" }, convert(plugin, 2, "h", "min"))
    assert.same({ content = "1.852 km/h" }, convert(plugin, 1, "knot", "km/h"))
    assert.same({ content = "1073.741824 MB" }, convert(plugin, 1, "GiB", "MB"))
  end)

  it("converts temperatures with their offsets", function()
    local plugin = harness.plugin()
    assert.same({ content = "212 F" }, convert(plugin, 100, "C", "F"))
    assert.same({ content = "-40 C" }, convert(plugin, -40, "F", "C"))
    assert.same({ content = "-273.15 C" }, convert(plugin, 0, "K", "C"))
  end)

  it("rounds to the digits asked for", function()
    assert.same({ content = "6.21 mi" }, convert(harness.plugin{ digits = 3 }, 10, "km", "mi"))
    assert.same({ content = "6 mi" }, convert(harness.plugin{ digits = 1 }, 10, "km", "mi"))
    assert.same({ content = "6.2137119223733395 mi" }, convert(harness.plugin{ digits = 17 }, 10, "km", "mi"))
  end)

  it("refuses digits outside 1 to 17 when the tool runs", function()
    for _, digits in ipairs({ 100, 18, 0, -1 }) do
      local result = convert(harness.plugin{ digits = digits }, 10, "km", "mi")
      assert.same({ error = "digits must be a whole number from 1 to 17, not " .. digits }, result)
    end
  end)

  it("refuses to mix kinds", function()
    assert.same({ error = "cannot convert kg to m: a mass is not a length" }, convert(harness.plugin(), 1, "kg", "m"))
  end)

  it("takes only the units of its schema", function()
    local result = convert(harness.plugin(), 1, "furlong", "m")
    assert.matches("^the arguments do not match the parameters of convert: /from: must be one of", result.error)
  end)

  it("wants a number for the value", function()
    local result = convert(harness.plugin(), "5", "km", "m")
    assert.equals("the arguments do not match the parameters of convert: /value: expected number, got string", result.error)
  end)

  it("refuses digits that are not a whole number", function()
    assert.has_error(function() harness.plugin{ digits = 2.5 } end, "digits must be a whole number, not '2.5'")
  end)
end)
