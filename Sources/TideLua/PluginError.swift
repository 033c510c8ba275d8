
/// A plugin that cannot be found, loaded or configured.
public enum PluginError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No plugin by that name in the places searched.
    case notFound(String, searched: [String])
    /// The file cannot be read: why, naming the file.
    case unreadable(String)
    /// The file does not define a valid plugin.
    case invalid(path: String, String)
    /// An option the plugin does not declare, or a value of the wrong type.
    case badOption(plugin: String, String)

    public var description: String {
        switch self {
        case .notFound(let name, let searched):
            "no plugin '\(name)' in " + searched.joined(separator: ", ") + " (give a path to a .lua file, or see `tide plugins list`)"
        case .unreadable(let reason): reason
        case .invalid(let path, let problem): "\(path): \(problem)"
        case .badOption(let plugin, let problem): "plugin \(plugin): \(problem)"
        }
    }
}
