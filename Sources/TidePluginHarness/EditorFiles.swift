import TideCore
import TideLua

/// The files an editor and a linter read to know a plugin's world, written from ``PluginAPI``
/// (`tide plugins types`, `tide plugins luacheckrc`; docs/plugins.md, "Editors and lint").
public enum EditorFiles {
    /// The globals a plugin test file has besides the sandbox's (harness.lua).
    public static let testGlobals = ["describe", "it", "pending", "before_each", "after_each", "harness"]
    /// The fields of `assert` in a test file.
    public static let assertions = ["equals", "equal", "same", "is_true", "is_false", "is_nil", "is_not_nil", "truthy", "falsy",
                                    "matches", "has_error", "are", "is"]

    /// A LuaLS (lua-language-server, EmmyLua) definition file: the `tide` table, the tables hooks
    /// receive, and the plugin table with every hook's signature.
    public static var luaLSDefinitions: String {
        var lines = ["---@meta tide", "-- Tide's plugin API for the editor (tide plugins types > tide.d.lua; docs/plugins.md).", ""]
        lines += ["---The table Tide gives every plugin.", "---@class tide"]
        lines += PluginAPI.tide.compactMap { member in member.type.map { "---@field \(member.name) \($0) \(member.summary)" } }
        lines += ["tide = {}", ""]
        for member in PluginAPI.tide {
            guard let function = member.function else { continue }
            lines += ["---\(member.summary)", "---@type \(function)", "tide.\(member.name) = nil", ""]
        }
        lines += ["---What the session's model says of itself.", "---@class tide.Model"]
        lines += PluginAPI.model.map { "---@field \($0.name) \($0.type ?? "any") \($0.summary)" } + [""]
        for item in PluginAPI.classes {
            lines += ["---\(item.summary)", "---@class \(item.name)" + (item.parent.map { " : \($0)" } ?? "")]
            lines += item.fields.map { "---@field \($0.name) \($0.function ?? $0.type ?? "any") \($0.summary)" } + [""]
        }
        lines += ["---What a plugin file returns.", "---@class tide.Plugin",
                  "---@field name string? Its name (the file's, else).",
                  "---@field version string? Its version.",
                  "---@field description string? What it does, in one line.",
                  "---@field options table<string, string|number|boolean>? Each option with its default.",
                  "---@field rewind_window integer|fun(): integer|nil The most bytes should_stop may take back.",
                  "---@field tools table<string, {description: string, parameters: table, run: fun(args: table): any}>? Its tools."]
        lines += HookPoint.allCases.map { "---@field \($0.rawValue) (\(PluginAPI.signature(of: $0)))?" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A luacheck configuration: the sandbox's globals and libraries as they are (what it removed
    /// is flagged as undefined), `tide` with its fields (`tide.state` and `tide.options` writable
    /// within), and test files' globals for `*_test.lua`.
    public static var luacheckConfig: String {
        func quoted(_ names: [String]) -> String { names.sorted().map { "\"\($0)\"" }.joined(separator: ", ") }
        var lines = ["-- luacheck configuration for Tide plugins (tide plugins luacheckrc > .luacheckrc; docs/plugins.md).",
                     "-- Only what Tide's sandbox keeps is defined: io, os.execute, require, debug, ... are flagged.",
                     "std = \"tide\"", "max_line_length = 150", "stds.tide = {", "  read_globals = {"]
        lines.append("    " + quoted(PluginAPI.globals) + ",")
        for (library, fields) in PluginAPI.libraries.sorted(by: { $0.key < $1.key }) {
            lines.append("    \(library) = { fields = { \(quoted(fields)) } },")
        }
        let fixed = PluginAPI.tide.filter { !["state", "options", "model"].contains($0.name) }.map(\.name)
        lines.append("    tide = { fields = { \(quoted(fixed)), state = { read_only = false, other_fields = true }, "
                     + "options = { read_only = false, other_fields = true }, model = { other_fields = true } } },")
        lines += ["  },", "}", "stds.tide_test = {",
                  "  read_globals = { \(quoted(testGlobals)), assert = { fields = { \(quoted(assertions)) } } },",
                  "}", "files[\"**/*_test.lua\"] = { std = \"tide+tide_test\" }"]
        return lines.joined(separator: "\n") + "\n"
    }
}
