-- Tests of clock (tide plugins test Plugins/clock_test.lua): the current_time tool's answer, the
-- offsets it applies and those it refuses. The time itself changes from run to run, so the tests
-- check what holds at any time.
local function current_time(plugin, offset)
  return plugin:run_tool{ name = "current_time", arguments = { utc_offset = offset } }
end

-- The answers in UTC and at `offset` (the option's when nil), read within one second.
local function utc_and(plugin, offset)
  for _ = 1, 5 do
    local utc = current_time(plugin, "+00:00").content
    local shifted = current_time(plugin, offset).content
    if current_time(plugin, "+00:00").content == utc then return utc, shifted end
  end
  error("the clock ticked over a second at every try")
end

-- Minutes past midnight in an answer.
local function minutes(answer)
  local hour, minute = answer:match(" (%d%d):(%d%d):%d%d ")
  return tonumber(hour) * 60 + tonumber(minute)
end

describe("clock", function()
  it("tells the date, the time and the weekday in UTC", function()
    local answer = current_time(harness.plugin{})
    assert.matches("^%d%d%d%d%-%d%d%-%d%d %d%d:%d%d:%d%d %(%a+day%), UTC%+00:00$", answer.content)
  end)

  it("names the weekday of the date it gives", function()
    local days = { "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday" }
    local plugin = harness.plugin{}
    for _, offset in ipairs({ "-12:00", "+00:00", "+14:00" }) do
      local answer = current_time(plugin, offset).content
      local year, month, day, weekday = answer:match("^(%d+)%-(%d+)%-(%d+) %S+ %((%a+)%)")
      local noon = os.time{ year = tonumber(year), month = tonumber(month), day = tonumber(day), hour = 12 }
      assert.equals(days[os.date("*t", noon).wday], weekday)
    end
  end)

  it("shifts the time by the offset the model gives", function()
    local utc, shifted = utc_and(harness.plugin{}, "+05:30")
    assert.matches("UTC%+05:30$", shifted)
    assert.equals((minutes(utc) + 5 * 60 + 30) % (24 * 60), minutes(shifted))
    assert.equals(utc:match(":(%d%d) "), shifted:match(":(%d%d) "))
  end)

  it("uses the option when the model gives no offset", function()
    local utc, shifted = utc_and(harness.plugin{ utc_offset = "-05:00" })
    assert.matches("UTC%-05:00$", shifted)
    assert.equals((minutes(utc) - 5 * 60) % (24 * 60), minutes(shifted))
  end)

  it("prefers the model's offset to the option", function()
    local answer = current_time(harness.plugin{ utc_offset = "-05:00" }, "+01:00")
    assert.matches("UTC%+01:00$", answer.content)
  end)

  it("refuses an offset past 14 hours", function()
    local answer = current_time(harness.plugin{}, "+15:00")
    assert.matches("does not match the pattern", answer.error)
  end)

  it("refuses an option that is not an offset, once it is used", function()
    local plugin = harness.plugin{ utc_offset = "+2" }
    assert.same({ error = "utc_offset must be +HH:MM or -HH:MM, such as +02:00, not +2" }, current_time(plugin))
  end)
end)
