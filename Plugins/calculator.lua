-- calculator: a tool that evaluates arithmetic exactly as written, for the model to call instead
-- of guessing sums.
--
-- Tool `calculate` (arguments: { expression = "…" }): numbers (3, 2.5, 1e3), + - * / % ^,
-- parentheses, unary minus, the constants pi and e, and the functions sqrt, abs, floor, ceil,
-- round, min, max, exp, ln, log10, sin, cos, tan (each of one argument, but min and max of any
-- number), with the precedence of mathematics and Lua: ^ before a unary minus (-2^2 is -4) and
-- from the right (2^3^2 is 2^9). The expression is parsed here, never run as Lua code; a mistake
-- in it is an error the model is told ("unexpected ')' at 7: there is no '(' for it to close").
-- Options:  digits = 12     significant digits of the result, a whole number from 1 to 17
-- Example:  tide chat --plugin calculator
--           tide generate --plugin calculator --tool-choice required "What is 12.5% of 3400?"
local plugin = {
  name = "calculator",
  version = "1.0",
  description = "A tool that evaluates arithmetic expressions.",
  options = { digits = 12 },
}

local functions = {
  sqrt = math.sqrt, abs = math.abs, floor = math.floor, ceil = math.ceil, exp = math.exp,
  ln = math.log, log10 = function(x) return math.log(x, 10) end,
  sin = math.sin, cos = math.cos, tan = math.tan,
  round = function(x) return x >= 0 and math.floor(x + 0.5) or -math.floor(-x + 0.5) end,
  min = math.min, max = math.max,
}
local any_number = { min = true, max = true }
local constants = { pi = math.pi, e = math.exp(1) }

-- The digits option, checked where it is used: tide.options is set only after the file has run.
-- %.17g is the most a double has.
local function digits()
  local n = tide.options.digits
  if type(n) ~= "number" or n ~= math.floor(n) or n < 1 or n > 17 then
    error(string.format("digits must be a whole number from 1 to 17, not %s", tostring(n)), 0)
  end
  return math.floor(n)
end

-- The expression's tokens: numbers, names, operators and parentheses, with their positions.
local function tokens(text)
  local list, at = {}, 1
  while at <= #text do
    local c = text:sub(at, at)
    if c:match("%s") then
      at = at + 1
    else
      local number = text:match("^%d*%.?%d+[eE][%+%-]?%d+", at) or text:match("^%d+%.?%d*", at) or text:match("^%.%d+", at)
      local name = text:match("^%a[%w_]*", at)
      if number then
        list[#list + 1] = { kind = "number", value = tonumber(number), text = number, at = at }
        at = at + #number
      elseif name then
        list[#list + 1] = { kind = "name", value = name:lower(), text = name, at = at }
        at = at + #name
      elseif c:match("[%+%-%*/%%%^%(%),]") then
        list[#list + 1] = { kind = c, at = at }
        at = at + 1
      else
        error(string.format("unexpected '%s' at %d", c, at), 0)
      end
    end
  end
  list[#list + 1] = { kind = "end", at = #text + 1 }
  return list
end

-- Recursive descent: sum := product (("+"|"-") product)*; product := unary (("*"|"/"|"%") unary)*;
-- unary := "-" unary | "+" unary | power; power := atom ("^" unary)?. "^" binds tighter than a
-- unary minus before it (-2^2 is -4, as in mathematics and Lua) and groups to the right (2^3^2
-- is 2^9); its exponent may have a sign of its own (2^-1 is 0.5).
local function evaluate(text)
  local list, index, depth = tokens(text), 1, 0
  local function peek() return list[index] end
  local function take(kind)
    local token = list[index]
    if kind and token.kind ~= kind then
      error(string.format("expected '%s' at %d", kind, token.at), 0)
    end
    index = index + 1
    return token
  end
  local sum
  local function atom()
    local token = take()
    if token.kind == "number" then return token.value end
    if token.kind == "(" then
      local value = sum()
      take(")")
      return value
    end
    if token.kind == "name" then
      if constants[token.value] then return constants[token.value] end
      local f = functions[token.value]
      if not f then error(string.format("unknown name '%s' at %d", token.value, token.at), 0) end
      take("(")
      local arguments = { sum() }
      while peek().kind == "," do
        local comma = take(",")
        if not any_number[token.value] then
          error(string.format("%s takes one argument, not more: unexpected ',' at %d", token.value, comma.at), 0)
        end
        arguments[#arguments + 1] = sum()
      end
      take(")")
      return f(table.unpack(arguments))
    end
    if token.kind == "end" then
      error(#list == 1 and "the expression is empty: write the arithmetic to evaluate, such as 2 + 2"
        or string.format("the expression ends too soon, at %d: a number or '(' should come next", token.at), 0)
    end
    error(string.format("unexpected '%s' at %d", token.kind, token.at), 0)
  end
  local unary
  local function power()
    local base = atom()
    if peek().kind == "^" then
      take()
      return base ^ unary()
    end
    return base
  end
  unary = function()
    depth = depth + 1
    if depth > 200 then error("the expression nests too deeply", 0) end
    local value
    if peek().kind == "-" then take(); value = -unary()
    elseif peek().kind == "+" then take(); value = unary()
    else value = power() end
    depth = depth - 1
    return value
  end
  local function product()
    local value = unary()
    while peek().kind == "*" or peek().kind == "/" or peek().kind == "%" do
      local operator = take().kind
      local right = unary()
      if operator == "*" then value = value * right
      elseif operator == "/" then
        if right == 0 then error("division by zero", 0) end
        value = value / right
      else
        if right == 0 then error("modulo by zero", 0) end
        value = value % right
      end
    end
    return value
  end
  sum = function()
    local value = product()
    while peek().kind == "+" or peek().kind == "-" do
      local operator = take().kind
      local right = product()
      value = operator == "+" and value + right or value - right
    end
    return value
  end
  local value = sum()
  local rest = peek()
  if rest.kind == ")" then
    error(string.format("unexpected ')' at %d: there is no '(' for it to close", rest.at), 0)
  elseif rest.kind == "," then
    error(string.format("unexpected ',' at %d: commas only separate the arguments of min and max", rest.at), 0)
  elseif rest.kind ~= "end" then
    error(string.format("unexpected '%s' at %d: an operator should come before it", rest.text or rest.kind, rest.at), 0)
  end
  return value
end

plugin.tools = {
  calculate = {
    description = "Evaluate an arithmetic expression and return its value, e.g. (2 + 3) * 4.5 or sqrt(2).",
    parameters = {
      type = "object",
      properties = { expression = { type = "string",
                                    description = "The expression, with + - * / % ^, parentheses and functions." } },
      required = { "expression" },
    },
    run = function(args)
      if #args.expression > 1000 then error("the expression is longer than 1000 characters", 0) end
      local places = digits()
      local value = evaluate(args.expression)
      if value ~= value or value == math.huge or value == -math.huge then error("the result is not a finite number", 0) end
      if math.type(value) == "integer" or (value == math.floor(value) and math.abs(value) < 2^53) then
        return string.format("%d", value)
      end
      return string.format("%." .. places .. "g", value)
    end,
  },
}

return plugin
