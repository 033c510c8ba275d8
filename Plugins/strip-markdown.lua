-- strip-markdown: show replies as plain text, without Markdown markup.
--
-- Drops emphasis and code markers (* and `) and the # of headings at the start of a line,
-- token by token as the reply streams. Inside a ``` code block only the fences go, so code
-- comments keep their #. Underscores are kept (they are common in names).
-- Bullets "* item" and "- item" become "• item" when `bullets` is true.
--
-- Options:  bullets = true   turn list markers at the start of a line into "•"
-- Example:  tide generate --plugin strip-markdown "Give me a markdown list of three fruits."
local plugin = {
  name = "strip-markdown",
  version = "1.0",
  description = "Remove Markdown markup from the reply as it streams.",
  options = { bullets = true },
}

function plugin.on_token(token, reply)
  local text = token.text
  local before = reply.text:sub(1, #reply.text - #text)
  local _, fences = before:gsub("```", "")
  local in_code = fences % 2 == 1
  local line_start = before:match("\n%s*$") or before == ""
  if line_start and not in_code then
    text = text:gsub("^(%s*)#+%s*", "%1")
    if tide.options.bullets then text = text:gsub("^(%s*)[%*%-]%s", "%1• ") end
  end
  text = text:gsub("[%*`]", "")
  if text ~= token.text then return text end
end

return plugin
