-- redact-emails: hide e-mail addresses and phone numbers as the reply streams.
--
-- An address or number arrives over several tokens, so the plugin holds back the word being
-- written (and a trailing run of digits, spaces and dashes that may be a phone number) until
-- it is complete, then shows it redacted. What is held is released when the reply ends.
-- A phone number is a run of digits, spaces, dots, dashes and brackets with at least 7 digits,
-- in groups split by a space, dot, dash or bracket (555-123-4567, (555) 123-4567, 555.123.4567,
-- +1 555 123 4567) or led by a + (+15551234567): a bare run of digits, such as an order number
-- (1234567), is not one, nor are bare runs on lines of their own.
-- The results of tool calls (Lua plugins' tools, MCP servers') are redacted the same way before
-- the model reads them, so what a tool found is not repeated from there.
--
-- Options:  emails = true          redact e-mail addresses
--           phones = true          redact phone numbers
--           mask = "[redacted]"    what replaces them
--           results = true         redact tool results too
-- Example:  tide generate --plugin redact-emails "Write a sample contact card for Jane Doe."
local plugin = {
  name = "redact-emails",
  version = "1.0",
  description = "Mask e-mail addresses and phone numbers in the reply and in tool results.",
  options = { emails = true, phones = true, mask = "[redacted]", results = true },
}

local function redact(text)
  local mask = tide.options.mask
  if tide.options.emails then
    text = text:gsub("[%w%.%%%+%-_]+@[%w%-_]+%.[%w%.%-_]*%w", mask)
  end
  if tide.options.phones then
    text = text:gsub("%+?[%d%(][%d%s%.%-%(%)]*%d", function(run)
      local _, digits = run:gsub("%d", "")
      if digits >= 7 and (run:find("^%+") or run:find("%d[ %.%-%(%)]+%d")) then return mask end
    end)
  end
  return text
end

-- Where the text stops being safe to show: the start of the last word, or of a trailing run
-- that could still grow into a phone number.
local function safe_length(text)
  local last_space = text:match(".*()%s") or 0
  local phone_run = text:find("%+?[%d%(][%d%s%.%-%(%)]*$")
  if phone_run and phone_run <= last_space then return phone_run - 1 end
  return last_space
end

function plugin.on_token(token)
  local text = (tide.state.held or "") .. token.text
  if token.final then
    tide.state.held = ""
    return redact(text)
  end
  local cut = safe_length(text)
  tide.state.held = text:sub(cut + 1)
  return redact(text:sub(1, cut))
end

function plugin.on_tool_result(result)
  if tide.options.results then return (redact(result.content)) end
end

return plugin
