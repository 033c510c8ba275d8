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
    private var requestedRewind: Rewind?
    /// The hook running now, if any (`tide.rewind` works only in `should_stop`).
    var point: HookPoint?
    /// The session's tokenizer, once the plugin is attached to a session.
    var vocabulary: (any Vocabulary)?
    /// The scores of the step being sampled, during an `on_logits` call only.
    var logits: (any LogitsView)?
    /// The registry reference of the view table passed to `on_logits`.
    private(set) var viewReference: Int32 = 0

    init(name: String, log: @escaping @Sendable (String) -> Void) {
        self.name = name
        self.log = log
    }

    /// Creates the `tide` table in `lua`: host functions, `tide.state`, `tide.version`, and the
    /// Lua-side conveniences of the prelude. The state must not outlive this object.
    func install(in lua: LuaState) throws(LuaError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        for function in ["_log", "_stop", "_rewind", "_rewind_keeping", "_tokenize", "_detokenize", "_token_text", "_top", "_bias", "_ban",
                         "_realpath", "_nfkc"] {
            tide_lua_add_host_function(lua.pointer, function, pluginHostFunction, context)
        }
        lua.setTideField("state", to: .table(array: [], fields: [:]))
        lua.setTideField("version", to: .string(TideCore.tideVersion))
        try lua.run(Self.prelude, chunkName: "=tide")
        tide_lua_push_tide(lua.pointer)
        lua.pushRawField("_view", of: -1)
        viewReference = luaL_ref(lua.pointer, tide_lua_registryindex())
        lua.setTideField("_view", to: .nil)
        tide_lua_pop(lua.pointer, 1)
    }

    /// Takes the reason a hook gave to `tide.stop`, if it called it.
    func takeRequestedStop() -> String? {
        defer { requestedStop = nil }
        return requestedStop
    }

    /// Takes the rewind a `should_stop` call asked for with `tide.rewind`, if it did.
    func takeRequestedRewind() -> Rewind? {
        defer { requestedRewind = nil }
        return requestedRewind
    }

    /// Lua-side conveniences over the host functions.
    private static let prelude = """
        local log, stop, rewind, rewind_keeping = tide._log, tide._stop, tide._rewind, tide._rewind_keeping
        tide._log, tide._stop, tide._rewind, tide._rewind_keeping = nil, nil, nil, nil
        function tide.log(...)
          local parts = {}
          for i = 1, select('#', ...) do parts[i] = tostring((select(i, ...))) end
          log(table.concat(parts, ' '))
        end
        function tide.stop(reason) stop(reason == nil and '' or tostring(reason)) end
        function tide.rewind(at, options)
          at = math.tointeger(at) or error('tide.rewind needs the byte where the text to take back starts (as string.find gives it)', 2)
          options = options or {}
          if type(options) ~= 'table' then error('tide.rewind options must be a table', 2) end
          local also = options.also_ban or {}
          if type(also) ~= 'table' then error('also_ban must be a list of token ids', 2) end
          if options.ban == false then rewind_keeping(also, at) else rewind(also, at) end
        end
        print = tide.log
        local tokenize, detokenize, token_text = tide._tokenize, tide._detokenize, tide._token_text
        local top, bias, ban = tide._top, tide._bias, tide._ban
        tide._tokenize, tide._detokenize, tide._token_text, tide._top, tide._bias, tide._ban = nil
        function tide.tokenize(text) return (tokenize(tostring(text))) end
        function tide.detokenize(tokens) return (detokenize(tokens)) end
        function tide.token_text(id) return (token_text(math.tointeger(id) or error('token ids are integers', 2))) end
        local view = {}
        function view:top(k)
          local ids, scores = top(math.tointeger(k) or 10)
          local candidates = {}
          for i = 1, #ids do candidates[i] = { id = ids[i], logit = scores[i], text = tide.token_text(ids[i]) } end
          return candidates
        end
        function view:bias(id, delta) bias(math.tointeger(id) or error('token ids are integers', 2), tonumber(delta) or 0) end
        function view:ban(id) ban(math.tointeger(id) or error('token ids are integers', 2)) end
        tide._view = view
        local realpath, nfkc, pcall = tide._realpath, tide._nfkc, pcall
        tide._realpath, tide._nfkc = nil, nil
        function tide.realpath(path)
          if type(path) ~= 'string' then error('tide.realpath needs a path (a string), not ' .. type(path), 2) end
          local ok, result, lookups = pcall(realpath, path)
          if ok then return result, math.tointeger(lookups[1]) end
          return nil, result
        end
        function tide.nfkc(text)
          if type(text) ~= 'string' and type(text) ~= 'number' then error('tide.nfkc needs a string, not ' .. type(text), 2) end
          return (nfkc(tostring(text)))
        end
        """

    /// Serves a host function call. Never touches the Lua state: C pushes the results.
    fileprivate func serve(_ function: String, _ input: tide_host_input, _ output: UnsafeMutablePointer<tide_host_output>) {
        // Decoded only when used: tide.tokenize reads long text in pieces, straight from the bytes.
        lazy var text = input.text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: input.text_length), as: UTF8.self) }
        let tokens = Array(UnsafeBufferPointer(start: input.tokens, count: input.token_count))
        switch function {
        case "_log": log("[\(name)] " + Self.logLine(text ?? ""))
        case "_stop": requestedStop = text ?? ""
        case "_rewind", "_rewind_keeping":
            guard point == .stop else {
                return fail(output, "tide.rewind can only be called in should_stop" + (point.map { ", not in \($0)" } ?? ""))
            }
            // The position is checked against the reply and the plugin's window by the engine.
            requestedRewind = Rewind(offset: Int(max(min(input.number, 1e15), -1e15)) - 1, banFirstToken: function == "_rewind",
                                     bannedTokens: tokens)
        case "_tokenize", "_detokenize", "_token_text":
            guard let vocabulary else { return fail(output, "tide.\(function.dropFirst()) needs the model's tokenizer: none is attached yet, or the model runs on a server") }
            switch function {
            case "_tokenize":
                // nil: the call's limit was hit, and C raises its error.
                let bytes = UnsafeRawBufferPointer(start: input.text, count: input.text_length)
                guard let ids = vocabulary.tokens(ofUTF8: bytes, inPiecesCharging: input.state) else { return }
                give(tokens: ids, to: output)
            case "_detokenize":
                if let bad = tokens.first(where: { $0 < 0 || Int($0) >= vocabulary.vocabularySize }) {
                    return fail(output, "no token \(bad) in a vocabulary of \(vocabulary.vocabularySize)")
                }
                if let state = input.state,
                   tide_lua_spend(state, TokenizingCost.call + TokenizingCost.perByte * Int64(tokens.count)) != 0 { return }
                give(text: vocabulary.text(of: tokens), to: output)
            default:
                guard let id = text.flatMap({ Int32($0) }), id >= 0, Int(id) < vocabulary.vocabularySize else {
                    return fail(output, "no token \((text ?? "nil").prefix(40)) in a vocabulary of \(vocabulary.vocabularySize)")
                }
                if let state = input.state, tide_lua_spend(state, TokenizingCost.tokenText) != 0 { return }
                give(text: vocabulary.tokenText(id), to: output)
            }
        case "_top", "_bias", "_ban":
            guard let logits else { return fail(output, "the logits view can only be used inside on_logits") }
            let id = text.flatMap { Int32($0) } ?? -1
            switch function {
            case "_top":
                let candidates = logits.top(min(max(Int(id), 0), 1000))
                give(tokens: candidates.map(\.id), to: output)
                give(numbers: candidates.map { Double($0.logit) }, to: output)
            default:
                guard id >= 0, Int(id) < logits.vocabularySize else {
                    return fail(output, "no token \((text ?? "nil").prefix(40)) in a vocabulary of \(logits.vocabularySize)")
                }
                if function == "_ban" { return logits.ban(id) }
                let delta = Float(input.number)  // a double past Float's range would become infinite
                guard delta.isFinite else { return fail(output, "the bias for token \(id) must be a finite number, not \(input.number)") }
                logits.bias(id, by: delta)
            }
        case "_realpath":
            let path = Array(UnsafeRawBufferPointer(start: input.text, count: input.text_length))
            switch PathResolution.resolve(path, lookup: { input.state.map { tide_lua_spend($0, PathResolution.costPerLookup) == 0 } ?? true }) {
            case .success(let resolved):
                give(bytes: resolved.path, to: output)
                give(numbers: [Double(resolved.lookups)], to: output)
            case .failure(let failure): fail(output, failure.description)
            }
        case "_nfkc":
            if let state = input.state,
               tide_lua_spend(state, TokenizingCost.call + PathResolution.costPerNormalisedByte * Int64(input.text_length)) != 0 { return }
            give(text: PathResolution.nfkc(text ?? ""), to: output)
        default: fail(output, "unknown host function \(function)")
        }
    }

    /// The most of one `tide.log` call that reaches the log.
    static let logLineLimit = 64 << 10

    /// `text` cut to ``logLineLimit`` bytes (at a character boundary), saying how much was left out.
    static func logLine(_ text: String) -> String {
        let bytes = text.utf8.count
        guard bytes > logLineLimit else { return text }
        var kept = 0
        let head = text.unicodeScalars.prefix { scalar in
            kept += UTF8.width(scalar)
            return kept <= logLineLimit
        }
        let shown = String(String.UnicodeScalarView(head))
        return shown + "… (\(bytes - shown.utf8.count) more bytes not shown)"
    }

    private func fail(_ output: UnsafeMutablePointer<tide_host_output>, _ message: String) {
        output.pointee.error = strdup(message)
    }

    private func give(text: String, to output: UnsafeMutablePointer<tide_host_output>) {
        give(bytes: Array(text.utf8), to: output)
    }

    private func give(bytes: [UInt8], to output: UnsafeMutablePointer<tide_host_output>) {
        let bytes = bytes.map { CChar(bitPattern: $0) }
        output.pointee.text = Self.mallocCopy(of: bytes)
        output.pointee.text_length = bytes.count
        output.pointee.has_text = 1
    }

    private func give(tokens: [Int32], to output: UnsafeMutablePointer<tide_host_output>) {
        output.pointee.tokens = Self.mallocCopy(of: tokens)
        output.pointee.token_count = tokens.count
        output.pointee.has_tokens = 1
    }

    private func give(numbers: [Double], to output: UnsafeMutablePointer<tide_host_output>) {
        output.pointee.numbers = Self.mallocCopy(of: numbers)
        output.pointee.number_count = numbers.count
        output.pointee.has_numbers = 1
    }

    /// A copy of `values` in memory from malloc, which the C side frees after pushing it to Lua.
    private static func mallocCopy<Element>(of values: [Element]) -> UnsafeMutablePointer<Element> {
        let buffer = malloc(max(values.count, 1) * MemoryLayout<Element>.stride)!.assumingMemoryBound(to: Element.self)
        buffer.initialize(from: values, count: values.count)
        return buffer
    }
}

/// The C entry point of every host function.
private let pluginHostFunction: tide_host_function = { context, name, input, output in
    guard let context, let name, let input, let output else { return }
    Unmanaged<PluginHost>.fromOpaque(context).takeUnretainedValue().serve(String(cString: name), input.pointee, output)
}
