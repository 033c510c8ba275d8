-- Fuzz seed (scripts/fuzz.sh plugin): every hook, options, a rewind window and a tool, for the fuzzer to mutate.
local p = { name = "seed", version = "1", options = { count = 2, word = "x", loud = false }, rewind_window = 64 }
function p.on_prompt(messages) table.insert(messages, { role = "system", content = tide.options.word }) return messages end
function p.on_token(text) if text:find("%d") then tide.log("digit") end end
function p.on_logits(view) return view end
function p.should_stop(reply) if #reply > 10 then tide.rewind(5) end return false end
p.tools = { echo = { description = "echo", parameters = { type = "object", properties = { s = { type = "string" } } }, run = function(a) return a.s end } }
return p
