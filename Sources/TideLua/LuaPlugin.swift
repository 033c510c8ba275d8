import CLua
import CLuaShim
import Foundation
import Synchronization
import TideCore

/// A Lua plugin instance: its own sandboxed state, its declared hooks and its options.
///
/// The file returns a table with `name`, `version`, `description`, `options` (defaults) and any
/// of the seven hook functions. Each instance keeps `tide.state` across the turns of a session.
///
/// ```swift
/// let plugin = try LuaPlugin(spec: PluginSpec(parsing: "stop-after-sentences sentences=2"))
/// let session = ChatSession(backend: backend, hooks: [plugin])
/// ```
public final class LuaPlugin: ChatHook, ToolProvider, @unchecked Sendable {
    // Every use of `lua` holds `lock`: a session calls hooks from one task at a time, but a
    // plugin object could be shared by mistake, and Lua states are not thread-safe.
    public let name: String
    /// The plugin's version, as it declares it.
    public let version: String
    /// One line about what it does.
    public let summary: String
    /// The file it was loaded from.
    public let path: String
    public let points: Set<HookPoint>
    /// The options in effect: declared defaults overridden by the spec.
    public let options: [String: LuaValue]
    /// The spec that loads this plugin again: its spec as given, a path made the path it was
    /// found at (without a spec, its name and options).
    public let specification: String

    private let lua: LuaState
    private let lock = NSLock()
    private let host: PluginHost
    private let hookReferences: [HookPoint: Int32]
    /// `rewind_window`: a number of bytes, or the registry reference of a function returning one.
    private let declaredWindow: (bytes: Int, function: Int32?)
    /// The tools the plugin declares (`tools = { name = { … } }`), sorted by name.
    public let tools: [ToolDefinition]
    /// The registry references of the tools' `run` functions, by tool name.
    let toolFunctions: [String: Int32]

    /// The largest `rewind_window` a plugin may declare, in bytes (Tide holds back twice the
    /// largest window of a session's plugins while a reply streams).
    public static let maximumRewindWindow = 1024

    /// Names a plugin table may define besides the hooks.
    static let metadataFields: Set<String> = ["name", "version", "description", "options", "rewind_window", "tools"]

    /// Finds, loads and configures the plugin `spec` names.
    public convenience init(spec: PluginSpec, locator: PluginLocator = .standard, limits: LuaLimits = LuaLimits(),
                            log: @escaping @Sendable (String) -> Void = { _ in }) throws(PluginError)
    {
        let file = try PluginSource(spec: spec, locator: locator)
        try self.init(source: file.text, path: file.path, options: spec.options, spec: spec, limits: limits, log: log)
    }

    /// Loads a plugin from its source text; `spec` is how it was asked for, if it was.
    public init(source: String, path: String, options given: [PluginSpec.Option] = [], spec: PluginSpec? = nil,
                limits: LuaLimits = LuaLimits(), log: @escaping @Sendable (String) -> Void = { _ in }) throws(PluginError)
    {
        let lua: LuaState
        do {
            lua = try LuaState(limits: limits)
        } catch {
            throw .invalid(path: path, error.message)
        }
        self.lua = lua
        self.path = path
        let fileName = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        // The host API exists before the file runs, so its top level may log.
        let host = PluginHost(name: fileName, log: log)
        self.host = host
        do {
            try host.install(in: lua)
        } catch {
            throw .invalid(path: path, error.message)
        }
        let table: LuaValue
        do {
            try lua.load(source, chunkName: "@" + path)
            try lua.call(arguments: 0, results: 1)
            table = lua.value(at: -1)
        } catch {
            throw .invalid(path: path, error.message)
        }
        guard case .table(_, let fields) = table else {
            tide_lua_pop(lua.pointer, 1)
            throw .invalid(path: path, "a plugin must return a table, but this file returns \(table.typeName == "nil" ? "nothing" : "a \(table.typeName)")")
        }
        let unknown = fields.keys.filter { !Self.metadataFields.contains($0) && HookPoint(rawValue: $0) == nil }.sorted()
        let misspelled = unknown.filter { $0.hasPrefix("on_") || $0.hasPrefix("should_") }
        guard misspelled.isEmpty else {
            tide_lua_pop(lua.pointer, 1)
            throw .invalid(path: path, "unknown hook \(misspelled.joined(separator: ", ")); hooks are "
                + HookPoint.allCases.map(\.rawValue).joined(separator: ", "))
        }
        name = fields["name"]?.string ?? fileName
        version = fields["version"]?.string ?? fields["version"]?.number.map { "\($0)" } ?? "0"
        summary = fields["description"]?.string ?? ""
        var references: [HookPoint: Int32] = [:]
        for point in HookPoint.allCases {
            guard case .opaque("function") = fields[point.rawValue] ?? .nil else {
                if let value = fields[point.rawValue], value != .nil {
                    tide_lua_pop(lua.pointer, 1)
                    throw .invalid(path: path, "\(point.rawValue) must be a function, not a \(value.typeName)")
                }
                continue
            }
            lua.pushRawField(point.rawValue, of: -1)
            references[point] = luaL_ref(lua.pointer, tide_lua_registryindex())
        }
        var windowFunction: Int32?
        if case .opaque("function") = fields["rewind_window"] ?? .nil {
            lua.pushRawField("rewind_window", of: -1)
            windowFunction = luaL_ref(lua.pointer, tide_lua_registryindex())
        }
        do {
            (tools, toolFunctions) = try Self.declaredTools(fields["tools"] ?? .nil, in: lua)
        } catch {
            tide_lua_pop(lua.pointer, 1)
            throw .invalid(path: path, error.message)
        }
        tide_lua_pop(lua.pointer, 1)
        hookReferences = references
        points = Set(references.keys)
        let windowBytes = try Self.windowBytes(fields["rewind_window"] ?? .nil, function: windowFunction != nil, path: path)
        if windowBytes > 0 || windowFunction != nil, !points.contains(.stop) {
            throw .invalid(path: path, "rewind_window needs a should_stop hook, where tide.rewind takes text back")
        }
        declaredWindow = (windowBytes, windowFunction)
        options = try Self.resolveOptions(plugin: name, path: path, declared: fields["options"] ?? .nil, given: given)
        var reload = spec ?? PluginSpec(name: name, options: given)
        if PluginSpec.isPath(reload.name) { reload.name = path }
        specification = reload.description
        host.name = name
        lua.setTideField("options", to: .table(array: [], fields: options))
        lua.setTideField("plugin", to: .string(name))
    }

    /// The bytes a `rewind_window` value declares (0 for a function, read at each reply).
    static func windowBytes(_ value: LuaValue, function: Bool, path: String) throws(PluginError) -> Int {
        if function || value == .nil { return 0 }
        guard let bytes = value.wholeNumber, (0...maximumRewindWindow).contains(bytes) else {
            throw .invalid(path: path, "rewind_window must be a whole number of bytes from 0 to \(maximumRewindWindow), "
                + "or a function returning one, not " + (value.number.map { "\($0)" } ?? "a \(value.typeName)"))
        }
        return bytes
    }

    /// Merges given values into the declared defaults, typed like the defaults.
    static func resolveOptions(plugin: String, path: String, declared: LuaValue, given: [PluginSpec.Option])
        throws(PluginError) -> [String: LuaValue]
    {
        var options: [String: LuaValue] = [:]
        switch declared {
        case .nil: break
        case .table(let array, let fields) where array.isEmpty:
            for (key, value) in fields {
                switch value {
                case .string, .integer, .number, .boolean: options[key] = value
                default:
                    throw .invalid(path: path, "the default of option '\(key)' is a \(value.typeName); "
                        + "defaults must be strings, numbers or booleans")
                }
            }
        default: throw .invalid(path: path, "options must be a table of defaults (name = value)")
        }
        for option in given {
            guard let current = options[option.key] else {
                throw .badOption(plugin: plugin, "unknown option '\(option.key)'"
                    + (options.isEmpty ? " (it takes none)" : "; it takes " + options.keys.sorted().joined(separator: ", ")))
            }
            options[option.key] = try typed(option, like: current, plugin: plugin)
        }
        return options
    }

    private static func typed(_ option: PluginSpec.Option, like current: LuaValue, plugin: String) throws(PluginError) -> LuaValue {
        let value = option.value
        switch current {
        case .integer:
            guard let number = Int64(value) else { throw .badOption(plugin: plugin, "\(option.key) must be a whole number, not '\(value)'") }
            return .integer(number)
        case .number:
            guard let number = Double(value), number.isFinite else {
                throw .badOption(plugin: plugin, "\(option.key) must be a number, not '\(value)'")
            }
            return .number(number)
        case .boolean:
            switch value.lowercased() {
            case "true", "yes", "on", "1": return .boolean(true)
            case "false", "no", "off", "0": return .boolean(false)
            default: throw .badOption(plugin: plugin, "\(option.key) must be true or false, not '\(value)'")
            }
        default: return .string(value)
        }
    }

    /// The registry reference of a hook's function.
    func hookReference(_ point: HookPoint) -> Int32? { hookReferences[point] }

    /// Runs `body` with exclusive use of the Lua state, inside hook `point` if given.
    func withState<Result>(at point: HookPoint? = nil, _ body: (LuaState) throws(LuaError) -> Result) throws(LuaError) -> Result {
        lock.lock()
        defer { lock.unlock() }
        host.point = point
        defer { host.point = nil }
        return try body(lua)
    }

    /// The instructions every call into the plugin so far has spent (its top level's, its
    /// hooks', its tools'), as its budget counts them; `nil` unless it counts every one
    /// (``countInstructions(_:)``).
    public var instructionsSpent: Int? {
        lock.lock()
        defer { lock.unlock() }
        return lua.countsEveryInstruction ? Int(lua.instructionsSpent) : nil
    }

    public func countInstructions(_ exactly: Bool) {
        lock.lock()
        defer { lock.unlock() }
        lua.countsEveryInstruction = exactly
    }

    /// The plugin's `rewind_window`: as declared, or what its function returns now (options and
    /// `tide.state` are known by then).
    public var rewindWindow: Int {
        get throws {
            guard let function = declaredWindow.function else { return declaredWindow.bytes }
            let value = try withState { lua throws(LuaError) in
                let state = lua.pointer
                let top = lua_gettop(state)
                defer { lua_settop(state, top) }
                lua_rawgeti(state, tide_lua_registryindex(), lua_Integer(function))
                try lua.call(arguments: 0, results: 1)
                return lua.value(at: top + 1)
            }
            return try Self.windowBytes(value, function: false, path: path)
        }
    }

    public func attach(to backend: any ChatBackend) {
        lock.lock()
        defer { lock.unlock() }
        host.vocabulary = backend.vocabulary
        lua.setTideField("model", to: Self.luaModel(backend.modelDescription))
    }

    /// `tide.model`: what the session's backend says about its model.
    static func luaModel(_ model: ModelDescription) -> LuaValue {
        var fields: [String: LuaValue] = ["name": .string(model.name), "backend": .string(model.backend),
                                          "context": .integer(Int64(model.contextSize))]
        if let architecture = model.architecture { fields["architecture"] = .string(architecture) }
        if let trained = model.trainedContextLength { fields["trained_context"] = .integer(Int64(trained)) }
        if let size = model.vocabularySize { fields["vocabulary_size"] = .integer(Int64(size)) }
        if !model.endTokens.isEmpty {
            fields["end_tokens"] = .table(array: model.endTokens.map { .integer(Int64($0)) }, fields: [:])
        }
        return .table(array: [], fields: fields)
    }

    /// Makes the logits view usable for the duration of `body`.
    func withLogits<Result>(_ view: any LogitsView, _ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        host.logits = view
        lock.unlock()
        defer {
            lock.lock()
            host.logits = nil
            lock.unlock()
        }
        return try body()
    }

    /// The registry reference of the view table passed to `on_logits`.
    var viewReference: Int32 { host.viewReference }

    /// Takes the reason a hook gave to `tide.stop`, if it called it.
    func takeRequestedStop() -> String? {
        lock.lock()
        defer { lock.unlock() }
        return host.takeRequestedStop()
    }

    /// Takes the rewind `should_stop` asked for with `tide.rewind`, if it did.
    func takeRequestedRewind() -> Rewind? {
        lock.lock()
        defer { lock.unlock() }
        return host.takeRequestedRewind()
    }
}
