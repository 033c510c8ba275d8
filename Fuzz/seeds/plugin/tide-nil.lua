-- Fuzz seed (scripts/fuzz.sh plugin): a plugin that removes the global tide, which once aborted the host.
tide = nil return {name = "p"}
