-- persona: give the model a character by setting the system prompt.
--
-- Pick one of the presets by name, or write your own with `system`; either replaces the
-- system prompt of every turn (the history keeps the original).
--
-- Options:  persona = "pirate"   a preset: pirate, teacher, poet, terse, shakespeare
--           system = ""          a system prompt of your own (wins over persona)
-- Example:  tide generate --plugin 'persona persona=poet' "Describe the tide."
local plugin = {
  name = "persona",
  version = "1.0",
  description = "Set the system prompt from a preset or an option.",
  options = { persona = "pirate", system = "" },
}

local presets = {
  pirate = "You are a jolly pirate. Answer every question in pirate speak, with plenty of 'Arr'.",
  teacher = "You are a patient teacher. Explain step by step, in simple words, and end with a short summary.",
  poet = "You are a poet. Answer every question with a short rhyming poem.",
  terse = "You are terse. Answer in as few words as possible, without pleasantries.",
  shakespeare = "You are William Shakespeare. Answer in Early Modern English, with flourish.",
}

function plugin.on_prompt(prompt)
  local system = tide.options.system
  if system == "" then
    system = presets[tide.options.persona]
    if not system then
      local names = {}
      for name in pairs(presets) do names[#names + 1] = name end
      table.sort(names)
      error("unknown persona '" .. tide.options.persona .. "'; choose one of " .. table.concat(names, ", "))
    end
  end
  if prompt.messages[1] and prompt.messages[1].role == "system" then
    prompt.messages[1].content = system
  else
    table.insert(prompt.messages, 1, { role = "system", content = system })
  end
end

return plugin
