/// A setting's text and where it came from, to name it in errors: `--plugin`, `the model's
/// plugin`, `capitals.tide:3: @mcp`.
public struct Sourced: Sendable, Hashable {
    /// The text, as written.
    public var text: String
    /// Where it was written.
    public var origin: String

    /// `text`, given at `origin`.
    public init(_ text: String, from origin: String) {
        self.text = text
        self.origin = origin
    }
}

/// A setting that could not be used, named with where it came from: `--plugin nosuch: no plugin 'nosuch'`.
public struct SourcedError: Error, Sendable, CustomStringConvertible {
    /// The setting.
    public let setting: Sourced
    /// Why it could not be used.
    public let reason: String

    /// `setting`, refused for `error`.
    public init(_ setting: Sourced, _ error: any Error) {
        self.setting = setting
        reason = "\(error)"
    }

    /// Where the setting was given, the setting, and why: `--plugin nosuch: no plugin 'nosuch'`.
    public var description: String { "\(setting.origin) \(setting.text): \(reason)" }
}
