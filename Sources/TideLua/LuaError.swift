/// A failure inside a Lua state, with the message Lua gave (and a traceback when it has one).
public struct LuaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: Sendable, Hashable {
        /// The chunk does not parse.
        case syntax
        /// A runtime error raised by the code (or by Lua on its behalf).
        case runtime
        /// The call ran past its instruction budget.
        case instructionBudget
        /// The call ran past its time limit.
        case timeLimit
        /// The state ran past its memory cap.
        case memoryLimit
        /// The state could not be created.
        case unavailable
    }

    /// What kind of failure.
    public let kind: Kind
    /// Lua's message.
    public let message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
