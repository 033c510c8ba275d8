-- json-mode: answer in JSON when the user's message starts with "json:".
--
-- The prefix is removed from the prompt and the turn's reply format is set in on_prompt
-- (prompt.params.format), so the reply is one JSON object that always parses. With `keys`,
-- the reply must be an object with exactly those keys, each a string, in that order (the
-- plugin writes the JSON schema itself). Other messages are left alone.
--
-- Options:  prefix = "json:"   what a message starts with to ask for JSON
--           keys = ""          comma-separated keys the object must have (e.g. name,capital)
-- Example:  tide chat --plugin 'json-mode keys=country,capital'
--           > json: the capital of France
local plugin = {
  name = "json-mode",
  version = "1.0",
  description = "Reply in JSON to messages that start with json:.",
  options = { prefix = "json:", keys = "" },
}

-- A schema as JSON text (a Lua table would list the properties in sorted order).
local function schema_for(keys)
  local properties, required = {}, {}
  for key in keys:gmatch("[^,%s]+") do
    if not key:match("^[%w_]+$") then
      error("json-mode: key '" .. key .. "' must be letters, digits and _")
    end
    properties[#properties + 1] = '"' .. key .. '": {"type": "string", "maxLength": 200}'
    required[#required + 1] = '"' .. key .. '"'
  end
  if #properties == 0 then return nil end
  return '{"type": "object", "properties": {' .. table.concat(properties, ", ")
    .. '}, "required": [' .. table.concat(required, ", ") .. '], "additionalProperties": false}'
end

local schema = nil

function plugin.on_prompt(prompt)
  local prefix = tide.options.prefix
  local last = prompt.messages[#prompt.messages]
  if last.content:sub(1, #prefix) ~= prefix then return end
  last.content = last.content:sub(#prefix + 1):match("^%s*(.-)%s*$") .. "\nReply with a JSON object."
  schema = schema or schema_for(tide.options.keys)
  if schema then
    prompt.params.format = { json_schema = schema }
  else
    prompt.params.format = "json"
  end
end

return plugin
