-- Tests of calculator (tide plugins test Plugins/calculator_test.lua): the calculate tool
-- evaluates arithmetic by parsing it, never running it as code, and tells the model its mistakes.
local function calculate(plugin, expression)
  return plugin:run_tool{ name = "calculate", arguments = { expression = expression } }
end

describe("calculator", function()
  it("follows the usual order of operations", function()
    local plugin = harness.plugin{}
    assert.same({ content = "14" }, calculate(plugin, "2 + 3 * 4"))
    assert.same({ content = "22.5" }, calculate(plugin, "(2 + 3) * 4.5"))
    assert.same({ content = "512" }, calculate(plugin, "2 ^ 3 ^ 2"))
    assert.same({ content = "1" }, calculate(plugin, "7 % 3"))
  end)

  it("raises to a power before negating, as mathematics and Lua do", function()
    local plugin = harness.plugin{}
    assert.same({ content = "-4" }, calculate(plugin, "-2^2"))
    assert.same({ content = "4" }, calculate(plugin, "(-2)^2"))
    assert.same({ content = "0.5" }, calculate(plugin, "2^-1"))
    assert.same({ content = "-0.25" }, calculate(plugin, "-2^-2"))
    assert.same({ content = "0.001953125" }, calculate(plugin, "2^-3^2"))
    assert.same({ content = "-18" }, calculate(plugin, "2 * -3^2"))
    assert.same({ content = "-256" }, calculate(plugin, "-2^2^3"))
  end)

  it("writes a whole result without a decimal point", function()
    local plugin = harness.plugin{}
    assert.same({ content = "2" }, calculate(plugin, "6 / 3"))
    assert.same({ content = "425" }, calculate(plugin, "12.5 / 100 * 3400"))
    assert.same({ content = "1000.5" }, calculate(plugin, "1e3 + .5"))
  end)

  it("knows its functions and constants, in any case", function()
    local plugin = harness.plugin{}
    assert.same({ content = "4" }, calculate(plugin, "SQRT(16)"))
    assert.same({ content = "7" }, calculate(plugin, "max(3, 7, 5)"))
    assert.same({ content = "3" }, calculate(plugin, "round(2.5)"))
    assert.same({ content = "-3" }, calculate(plugin, "round(-2.5)"))
    assert.same({ content = "3.14159265359" }, calculate(plugin, "pi"))
  end)

  it("gives 12 significant digits, or as many as asked", function()
    assert.same({ content = "0.333333333333" }, calculate(harness.plugin{}, "1 / 3"))
    local short = harness.plugin{ digits = 4 }
    assert.same({ content = "1.414" }, calculate(short, "sqrt(2)"))
    assert.same({ content = "1.153e+18" }, calculate(short, "2 ^ 60"))
    assert.same({ content = "0.3" }, calculate(harness.plugin{ digits = 1 }, "1 / 3"))
    assert.same({ content = "0.33333333333333331" }, calculate(harness.plugin{ digits = 17 }, "1 / 3"))
  end)

  it("refuses digits outside 1 to 17 when the tool runs, whatever the result", function()
    for _, digits in ipairs({ 100, 18, 0, -1 }) do
      local plugin = harness.plugin{ digits = digits }
      local message = "digits must be a whole number from 1 to 17, not " .. digits
      assert.same({ error = message }, calculate(plugin, "1 / 3"))
      assert.same({ error = message }, calculate(plugin, "1 + 1"))
    end
  end)

  it("tells the model its mistakes", function()
    local plugin = harness.plugin{}
    assert.same({ error = "division by zero" }, calculate(plugin, "1 / 0"))
    assert.same({ error = "unknown name 'foo' at 1" }, calculate(plugin, "foo(1)"))
    assert.same({ error = "expected ')' at 3" }, calculate(plugin, "(1"))
    assert.same({ error = "the result is not a finite number" }, calculate(plugin, "sqrt(-1)"))
    assert.matches("^the expression ends too soon, at 4", calculate(plugin, "2 +").error)
    assert.matches("^the expression is empty", calculate(plugin, "").error)
  end)

  it("says what is wrong with a blank or unbalanced expression, and where", function()
    local plugin = harness.plugin{}
    assert.same({ error = "the expression is empty: write the arithmetic to evaluate, such as 2 + 2" }, calculate(plugin, "   "))
    assert.same({ error = "unexpected ')' at 2: there is no '(' for it to close" }, calculate(plugin, "1)"))
    assert.same({ error = "unexpected ')' at 6: there is no '(' for it to close" }, calculate(plugin, "(1+2))"))
    assert.same({ error = "unexpected '2' at 3: an operator should come before it" }, calculate(plugin, "1 2"))
    assert.same({ error = "unexpected 'pi' at 3: an operator should come before it" }, calculate(plugin, "2 pi"))
    assert.same({ error = "unexpected ',' at 2: commas only separate the arguments of min and max" }, calculate(plugin, "1, 2"))
  end)

  it("refuses more arguments than a function takes", function()
    local plugin = harness.plugin{}
    assert.same({ error = "sqrt takes one argument, not more: unexpected ',' at 7" }, calculate(plugin, "sqrt(1, 2)"))
    assert.same({ error = "round takes one argument, not more: unexpected ',' at 10" }, calculate(plugin, "ROUND(2.5,1)"))
    assert.same({ content = "1" }, calculate(plugin, "min(3, 1, 2)"))
  end)

  it("never runs the expression as code", function()
    assert.same({ error = "unexpected '.' at 3" }, calculate(harness.plugin{}, "os.exit()"))
  end)

  it("refuses an expression over 1000 characters", function()
    local long = string.rep("1+", 500) .. "1"
    assert.same({ error = "the expression is longer than 1000 characters" }, calculate(harness.plugin{}, long))
  end)

  it("refuses a call without an expression", function()
    local answer = harness.plugin{}:run_tool{ name = "calculate", arguments = {} }
    assert.matches("missing required property 'expression'", answer.error)
  end)

  it("refuses digits that are not a whole number", function()
    assert.has_error(function() harness.plugin{ digits = 2.5 } end, "digits must be a whole number")
  end)
end)
