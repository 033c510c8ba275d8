import CLua
import CLuaShim
import Foundation
import TideCore

/// The Swift side of a plugin's `tide` table: the host functions that Lua calls through C
/// trampolines, and what they record. Used under its plugin's lock.
final class PluginHost: @unchecked Sendable {
    /// The plugin's name, for log lines (the file name until the plugin declares its own).
    var name: String
    private let log: @Sendable (String) -> Void
    private var requestedStop: String?

    init(name: String, log: @escaping @Sendable (String) -> Void) {
        self.name = name
        self.log = log
    }

    /// Creates the `tide` table in `lua`: host functions, `tide.state`, `tide.version`, and the
    /// Lua-side conveniences of the prelude. The state must not outlive this object.
    func install(in lua: LuaState) throws(LuaError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        for function in ["_log", "_stop"] {
            tide_lua_add_host_function(lua.pointer, function, pluginHostFunction, context)
        }
        lua_getglobal(lua.pointer, "tide")
        lua.push(.table(array: [], fields: [:]))
        lua_setfield(lua.pointer, -2, "state")
        lua.push(.string(TideCore.tideVersion))
        lua_setfield(lua.pointer, -2, "version")
        tide_lua_pop(lua.pointer, 1)
        try lua.run(Self.prelude, chunkName: "=tide")
    }

    /// Takes the reason a hook gave to `tide.stop`, if it called it.
    func takeRequestedStop() -> String? {
        defer { requestedStop = nil }
        return requestedStop
    }

    /// Lua-side conveniences over the host functions.
    private static let prelude = """
        local log, stop = tide._log, tide._stop
        tide._log, tide._stop = nil, nil
        function tide.log(...)
          local parts = {}
          for i = 1, select('#', ...) do parts[i] = tostring((select(i, ...))) end
          log(table.concat(parts, ' '))
        end
        function tide.stop(reason) stop(reason == nil and '' or tostring(reason)) end
        print = tide.log
        """

    /// Serves a host function call. Never touches the Lua state: C pushes the results.
    fileprivate func serve(_ function: String, _ input: tide_host_input, _ output: UnsafeMutablePointer<tide_host_output>) {
        let text = input.text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: input.text_length), as: UTF8.self) }
        switch function {
        case "_log": log("[\(name)] \(text ?? "")")
        case "_stop": requestedStop = text ?? ""
        default: output.pointee.error = strdup("unknown host function \(function)")
        }
    }
}

/// The C entry point of every host function.
private let pluginHostFunction: tide_host_function = { context, name, input, output in
    guard let context, let name, let input, let output else { return }
    Unmanaged<PluginHost>.fromOpaque(context).takeUnretainedValue().serve(String(cString: name), input.pointee, output)
}
