/// Makes the hooks of one conversation afresh: a server gives each request hooks of its own,
/// since plugins keep state across a reply. What the hooks are (Lua plugins, or any other
/// ``ChatHook``) is the maker's business; the server only calls it.
///
/// ```swift
/// let factory = HookFactory { log in try sources.map { try $0.instantiate(limits: limits, log: log) } }
/// let hooks = try factory.hooks(log: { print("plugin:", $0) })
/// ```
public struct HookFactory: Sendable {
    private let make: @Sendable (_ log: @escaping @Sendable (String) -> Void) throws -> [any ChatHook]

    /// A factory that calls `make` for each conversation, with where the hooks' messages go.
    public init(_ make: @escaping @Sendable (_ log: @escaping @Sendable (String) -> Void) throws -> [any ChatHook]) {
        self.make = make
    }

    /// No hooks.
    public static let none = HookFactory { _ in [] }

    /// Fresh hooks, in hook order; their messages (a plugin's `tide.log`) go to `log`.
    public func hooks(log: @escaping @Sendable (String) -> Void) throws -> [any ChatHook] {
        try make(log)
    }
}
