-- units: a tool that converts a quantity between units, exactly, for the model to call instead of
-- remembering conversion factors.
--
-- Tool `convert` (arguments: { value = N, from = "UNIT", to = "UNIT" }): lengths (mm cm m km in ft
-- yd mi nmi), masses (mg g kg t oz lb st), volumes (ml l tsp tbsp floz cup pt qt gal, US
-- measures), temperatures (C F K), times (s min h day week), speeds (m/s km/h mph knot), areas
-- (m2 km2 ha acre ft2) and data (B kB MB GB KiB MiB GiB). The units are an enum of the tool's
-- schema, so a local model can only name these; converting between kinds ("kg" to "m") is an
-- error the model is told.
-- Options:  digits = 10     significant digits of the result, a whole number from 1 to 17
-- Example:  tide chat --plugin units
--           tide generate --plugin units --tool-choice required "How many miles is a 10 km run?"
local plugin = {
  name = "units",
  version = "1.0",
  description = "A tool that converts quantities between units.",
  options = { digits = 10 },
}

-- Each unit's kind and its size in the kind's base unit (temperatures are handled apart).
local units = {
  mm = { "length", 0.001 }, cm = { "length", 0.01 }, m = { "length", 1 }, km = { "length", 1000 },
  ["in"] = { "length", 0.0254 }, ft = { "length", 0.3048 }, yd = { "length", 0.9144 }, mi = { "length", 1609.344 },
  nmi = { "length", 1852 },
  mg = { "mass", 0.000001 }, g = { "mass", 0.001 }, kg = { "mass", 1 }, t = { "mass", 1000 },
  oz = { "mass", 0.028349523125 }, lb = { "mass", 0.45359237 }, st = { "mass", 6.35029318 },
  ml = { "volume", 0.001 }, l = { "volume", 1 }, tsp = { "volume", 0.00492892159375 }, tbsp = { "volume", 0.01478676478125 },
  floz = { "volume", 0.0295735295625 }, cup = { "volume", 0.2365882365 }, pt = { "volume", 0.473176473 },
  qt = { "volume", 0.946352946 }, gal = { "volume", 3.785411784 },
  C = { "temperature" }, F = { "temperature" }, K = { "temperature" },
  s = { "time", 1 }, min = { "time", 60 }, h = { "time", 3600 }, day = { "time", 86400 }, week = { "time", 604800 },
  ["m/s"] = { "speed", 1 }, ["km/h"] = { "speed", 1 / 3.6 }, mph = { "speed", 0.44704 }, knot = { "speed", 1852 / 3600 },
  m2 = { "area", 1 }, km2 = { "area", 1000000 }, ha = { "area", 10000 }, acre = { "area", 4046.8564224 },
  ft2 = { "area", 0.09290304 },
  B = { "data", 1 }, kB = { "data", 1000 }, MB = { "data", 1000000 }, GB = { "data", 1000000000 },
  KiB = { "data", 1024 }, MiB = { "data", 1048576 }, GiB = { "data", 1073741824 },
}

-- The unit names in a fixed order, for the schema's enum.
local names = {}
for name in pairs(units) do names[#names + 1] = name end
table.sort(names)

-- The digits option, checked where it is used: tide.options is set only after the file has run.
-- %.17g is the most a double has.
local function digits()
  local n = tide.options.digits
  if type(n) ~= "number" or n ~= math.floor(n) or n < 1 or n > 17 then
    error(string.format("digits must be a whole number from 1 to 17, not %s", tostring(n)), 0)
  end
  return math.floor(n)
end

-- Temperatures to and from kelvin.
local function kelvin(value, unit)
  if unit == "C" then return value + 273.15 elseif unit == "F" then return (value - 32) * 5 / 9 + 273.15 end
  return value
end
local function fromKelvin(value, unit)
  if unit == "C" then return value - 273.15 elseif unit == "F" then return (value - 273.15) * 9 / 5 + 32 end
  return value
end

plugin.tools = {
  convert = {
    description = "Convert a quantity from one unit to another of the same kind (length, mass, volume, temperature, "
      .. "time, speed, area or data), e.g. 10 km to mi.",
    parameters = {
      type = "object",
      properties = {
        value = { type = "number", description = "The quantity to convert." },
        from = { type = "string", enum = names, description = "Its unit." },
        to = { type = "string", enum = names, description = "The unit to convert to." },
      },
      required = { "value", "from", "to" },
    },
    run = function(args)
      local places = digits()
      local from, to = units[args.from], units[args.to]
      if not from or not to then
        error("unknown unit " .. (from and args.to or args.from) .. "; the units are " .. table.concat(names, ", "), 0)
      end
      if from[1] ~= to[1] then
        error(string.format("cannot convert %s to %s: a %s is not a %s", args.from, args.to, from[1], to[1]), 0)
      end
      local value
      if from[1] == "temperature" then
        value = fromKelvin(kelvin(args.value, args.from), args.to)
      else
        value = args.value * from[2] / to[2]
      end
      local shown = string.format("%." .. places .. "g", value)
      return shown .. " " .. args.to
    end,
  },
}

return plugin
