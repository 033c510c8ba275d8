/// A setting a user can change to get past an error. Errors of the core and the backends say
/// what to do in words and list their remedies; each front end says how, in its own terms: the
/// `tide` command as flags (`--ctx-size`), while `tide serve` passes the words on unchanged (its
/// clients cannot change the server's settings).
public enum Remedy: Sendable, Hashable, Codable, CaseIterable {
    /// The context size, in tokens.
    case contextSize
    /// Dropping the oldest turns when a conversation outgrows the context.
    case dropOldestTurns
    /// The chat template.
    case chatTemplate
    /// How long a model's server may stay silent.
    case remoteTimeout

    /// The remedies of `error`, if it has any.
    public static func of(_ error: any Error) -> [Remedy] {
        (error as? any RemediableError)?.remedies ?? []
    }

    /// `remedies` as `name` says them, to follow an error's description:
    /// " (--ctx-size, --context-overflow drop-oldest)"; empty when `name` names none.
    public static func hint(for remedies: [Remedy], naming name: (Remedy) -> String?) -> String {
        let names = remedies.compactMap(name)
        return names.isEmpty ? "" : " (" + names.joined(separator: ", ") + ")"
    }

    /// `error`'s description, followed by the hint for its remedies.
    public static func describe(_ error: any Error, naming name: (Remedy) -> String?) -> String {
        "\(error)" + hint(for: of(error), naming: name)
    }
}

/// An error that a setting can get past: its description says what to do in words; its
/// remedies name the settings, for a front end to say how to change them.
public protocol RemediableError: Error, CustomStringConvertible {
    /// The settings that would get past the error, most likely first.
    var remedies: [Remedy] { get }
}
