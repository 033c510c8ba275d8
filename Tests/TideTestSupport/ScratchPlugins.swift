import Foundation

/// Plugins written to a scratch folder, for tests that need a plugin of their own.
public enum ScratchPlugins {
    /// `tag`: adds `[MARK]` (its option `mark`) to the end of every reply, so a test can see
    /// which instance of it ran, and whether twice.
    public static let tag = """
        -- Marks the end of each reply with [mark].
        return {
          name = "tag",
          options = { mark = "tag" },
          on_token = function(token)
            if token.final then return token.text .. "[" .. tide.options.mark .. "]" end
          end,
        }
        """

    /// A new scratch folder holding `plugins` (name → Lua source) as `NAME.lua`.
    public static func folder(_ plugins: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-plugins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, source) in plugins {
            try source.write(to: folder.appendingPathComponent("\(name).lua"), atomically: true, encoding: .utf8)
        }
        return folder
    }
}
