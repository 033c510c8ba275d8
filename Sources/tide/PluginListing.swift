import TideLua

/// One plugin as `tide plugins list` shows it: what it is, where it comes from, its hooks and
/// its options with their defaults (as text, or as JSON with `--json`).
struct PluginListing: Encodable {
    var name: String
    var version: String?
    var description: String?
    var path: String
    /// `file` or `shipped`.
    var origin: String
    /// Where the plugins of the same name that this one hides come from.
    var overrides: [String]
    var hooks: [String]
    /// The tools it offers the model, by name.
    var tools: [String] = []
    var options: [String: Option]
    /// Why the plugin does not load, if it does not.
    var error: String?

    /// An option's default value.
    enum Option: Encodable {
        case text(String), integer(Int), number(Double), flag(Bool)

        init?(_ value: LuaValue) {
            switch value {
            case .string(let text): self = .text(text)
            case .integer(let number): self = .integer(Int(number))
            case .number(let number): self = .number(number)
            case .boolean(let flag): self = .flag(flag)
            default: return nil
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .integer(let number): try container.encode(number)
            case .number(let number): try container.encode(number)
            case .flag(let flag): try container.encode(flag)
            }
        }

        /// As written after `key=` in a plugin spec.
        var spelled: String {
            switch self {
            case .text(let text): text.contains(" ") || text.isEmpty ? "\"\(text)\"" : text
            case .integer(let number): "\(number)"
            case .number(let number): "\(number)"
            case .flag(let flag): "\(flag)"
            }
        }
    }

    /// Loads `found` (options at their defaults) to describe it.
    init(_ found: PluginLocator.Found, overriding hidden: [String]) {
        name = found.name
        path = found.path
        origin = if case .shipped = found.origin { "shipped" } else { "file" }
        overrides = hidden
        do {
            let plugin = try LuaPlugin(source: try found.source(), path: found.path)
            version = plugin.version
            description = plugin.summary
            hooks = plugin.points.map(\.rawValue).sorted()
            tools = plugin.tools.map(\.name)
            options = plugin.options.compactMapValues(Option.init)
        } catch {
            hooks = []
            options = [:]
            self.error = "\(error)"
        }
    }

    /// The options as `key=default …`, or "none".
    static func optionsText(_ options: [String: LuaValue]) -> String {
        optionsText(options.compactMapValues(Option.init))
    }

    private static func optionsText(_ options: [String: Option]) -> String {
        options.isEmpty ? "none" : options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.spelled)" }.joined(separator: " ")
    }

    /// The listing's lines: name, version and description; then where it comes from, its hooks
    /// and its options.
    var text: String {
        var lines: [String] = []
        if let error {
            lines.append("\(name)  (does not load: \(error))")
        } else {
            lines.append("\(name) \(version ?? "")  \(description ?? "")")
            lines.append("    options: " + Self.optionsText(options))
            lines.append("    hooks: " + (hooks.isEmpty ? "none" : hooks.joined(separator: ", ")))
            if !tools.isEmpty { lines.append("    tools: " + tools.joined(separator: ", ")) }
        }
        let hidden = overrides.map { $0 == PluginLocator.Found.shippedPlace ? $0 : "in \($0)" }
        lines.append("    from: " + (origin == "shipped" ? PluginLocator.Found.shippedPlace : path)
            + (hidden.isEmpty ? "" : " (overrides the one " + hidden.joined(separator: " and the one ") + ")"))
        return lines.joined(separator: "\n")
    }
}
