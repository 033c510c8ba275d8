-- clock: a tool that tells the model the date and time now, which it cannot know otherwise.
--
-- Tool `current_time` (arguments: { utc_offset = "+02:00" }, optional): the date, the time to
-- the second and the day of the week, in UTC or at the offset given ("-05:00", "+05:30"), as
-- "2026-11-26 14:03:09 (Thursday), UTC+02:00". The offset is a pattern of the tool's schema, so a
-- local model can only write a valid one.
-- Options:  utc_offset = "+00:00"   the offset used when the model gives none (your time zone's)
-- Example:  tide chat --plugin 'clock utc_offset=+01:00'
--           tide generate --plugin clock --tool-choice required "What day of the week is it?"
local plugin = {
  name = "clock",
  version = "1.0",
  description = "A tool that tells the date and time.",
  options = { utc_offset = "+00:00" },
}

local days = { "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday" }

-- "+HH:MM" or "-HH:MM" in seconds; nil when the text is not an offset.
local function seconds(offset)
  local sign, hours, minutes = offset:match("^([%+%-])(%d%d):(%d%d)$")
  if not sign then return nil end
  hours, minutes = tonumber(hours), tonumber(minutes)
  if hours > 14 or minutes > 59 then return nil end
  return (sign == "-" and -1 or 1) * (hours * 3600 + minutes * 60)
end

plugin.tools = {
  current_time = {
    description = "The current date, time and day of the week, in UTC or at a UTC offset such as +02:00.",
    parameters = {
      type = "object",
      properties = {
        utc_offset = { type = "string", pattern = "^[+-](0[0-9]|1[0-4]):[0-5][0-9]$",
                       description = "The offset from UTC, +HH:MM or -HH:MM; the user's own when left out." },
      },
    },
    run = function(args)
      local offset = args.utc_offset or tide.options.utc_offset
      local shift = seconds(offset)
      if not shift then error("utc_offset must be +HH:MM or -HH:MM, such as +02:00, not " .. tostring(offset), 0) end
      local moment = os.date("!*t", os.time() + shift)
      return string.format("%04d-%02d-%02d %02d:%02d:%02d (%s), UTC%s", moment.year, moment.month, moment.day,
        moment.hour, moment.min, moment.sec, days[moment.wday], offset)
    end,
  },
}

return plugin
