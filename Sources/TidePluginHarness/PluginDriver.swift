import Foundation
import Synchronization
import TideCore
import TideFormat
import TideLua

/// What a plugin test's `harness` asks of Tide (harness.lua): plugins loaded each in a sandbox of
/// its own, as a reply loads them, and driven through Tide's own reply loop on a
/// ``ScriptedBackend`` whose reply is the pieces the test gives. Requests come as JSON, answers
/// go back as Lua source (``LuaLiteral``).
final class PluginDriver: Sendable {
    /// The plugin a test means when it names none: the file beside the test file.
    let pluginUnderTest: String?
    /// Where a plugin named by name is found.
    let locator: PluginLocator
    /// The limits of each plugin loaded (those of a reply).
    let limits: LuaLimits
    /// The plugins loaded so far, by the id their Lua side holds (from 1).
    private let loaded = Mutex<[Driven]>([])
    /// Loads the real model's tokenizer that a reply given as ids or as text needs; `nil`: none.
    let modelVocabulary: (@Sendable () throws -> ModelVocabulary)?
    /// That tokenizer, once loaded (or why it could not be).
    private let loadedVocabulary = Mutex<Result<ModelVocabulary, HarnessFailure>?>(nil)

    /// A driver of `pluginUnderTest`, finding others with `locator`; `modelVocabulary` loads the
    /// tokenizer of replies given as token ids.
    init(pluginUnderTest: String?, locator: PluginLocator, limits: LuaLimits,
         modelVocabulary: (@Sendable () throws -> ModelVocabulary)? = nil) {
        self.pluginUnderTest = pluginUnderTest
        self.modelVocabulary = modelVocabulary
        self.locator = locator
        self.limits = limits
    }

    /// A plugin loaded for a test, with the session it replies in.
    final class Driven: Sendable {
        let plugin: LuaPlugin
        let backend: ScriptedBackend
        let session: ChatSession
        let vocabulary: GivenVocabulary
        /// The tokenizer the plugin sees: ``vocabulary``, or a real model's once a reply is given in its tokens.
        let tokenizer: SwitchedVocabulary
        let tokens: Tokens
        let log: Texts

        init(plugin: LuaPlugin, log: Texts) {
            let tokens = Tokens()
            let vocabulary = GivenVocabulary()
            let tokenizer = SwitchedVocabulary(vocabulary)
            let backend = ScriptedBackend(modelName: "harness") { _ in tokens.value }
            backend.vocabulary = tokenizer
            self.plugin = plugin
            self.backend = backend
            self.session = ChatSession(backend: backend, hooks: [plugin], hookErrorPolicy: .failReply)
            self.vocabulary = vocabulary
            self.tokenizer = tokenizer
            self.tokens = tokens
            self.log = log
        }
    }

    /// The real model's tokenizer, loaded on first use.
    private func model() throws(HarnessFailure) -> ModelVocabulary {
        let result = loadedVocabulary.withLock { loaded in
            if let loaded { return loaded }
            let result: Result<ModelVocabulary, HarnessFailure>
            if let modelVocabulary {
                do {
                    result = .success(try modelVocabulary())
                } catch {
                    result = .failure(HarnessFailure("a reply given as token ids or as text needs the bundled model's tokenizer: \(error)"))
                }
            } else {
                result = .failure(HarnessFailure("a reply given as token ids or as text needs a model's tokenizer, and none is set up here"))
            }
            loaded = result
            return result
        }
        return try result.get()
    }

    /// The next reply's tokens, kept between requests.
    final class Tokens: Sendable {
        private let tokens = Mutex<[ScriptedToken]>([])
        var value: [ScriptedToken] {
            get { tokens.withLock { $0 } }
            set { tokens.withLock { $0 = newValue } }
        }
    }

    /// Texts kept between requests: a plugin's log lines.
    final class Texts: Sendable {
        private let texts = Mutex<[String]>([])
        var value: [String] {
            get { texts.withLock { $0 } }
            set { texts.withLock { $0 = newValue } }
        }

        func append(_ text: String) { texts.withLock { $0.append(text) } }
    }

    /// Serves the harness function `function` (`_load`, `_reply`, `_logits`, `_tool_call`,
    /// `_tool_result`) for the JSON `request`; the answer as Lua source, or why it cannot be given.
    func serve(_ function: String, _ request: String) async -> Result<String, HarnessFailure> {
        do {
            let request = try JSONValue(parsing: request)
            let answer: LuaValue
            if function == "_load" {
                answer = try load(request)
            } else if function == "_print" {
                print(request.field("line")?.string ?? "")
                answer = .nil
            } else {
                let given = request.field("request") ?? .object(JSONObject([]))
                let driven = try self.driven(request.field("plugin"))
                switch function {
                case "_reply": answer = try await reply(given, on: driven)
                case "_logits": answer = try logits(given, on: driven)
                case "_tool_call": answer = try toolCall(given, on: driven)
                case "_tool_result": answer = try toolResult(given, on: driven)
                case "_run_tool": answer = try runTool(given, on: driven)
                default: throw HarnessFailure("the harness has no function \(function)")
                }
            }
            return .success(LuaLiteral.of(answer))
        } catch let failure as HarnessFailure {
            return .failure(failure)
        } catch {
            return .failure(HarnessFailure("\(error)"))
        }
    }

    /// `harness.plugin(spec, options)`: loads a plugin — the one beside the test file, or the
    /// one `spec` names, with the options a spec written as on the command line gives
    /// (`"stop-on-pattern pattern=%."`) and then `options` — and answers `{id =, name =, options = …}`.
    private func load(_ request: JSONValue) throws -> LuaValue {
        let name: String
        var written: [PluginSpec.Option] = []
        if let spec = request.field("spec") {
            guard case .string(let text) = spec else { throw HarnessFailure("harness.plugin names a plugin with a string: a name or a path") }
            let parsed = try PluginSpec(parsing: text)
            name = parsed.name
            written = parsed.options
        } else {
            guard let pluginUnderTest else {
                throw HarnessFailure("this test file has no plugin beside it (NAME_test.lua tests NAME.lua): name the plugin, harness.plugin(\"NAME\", {…})")
            }
            name = pluginUnderTest
        }
        let options = try (request.field("options").flatMap(\.objectMembers) ?? []).map { member in
            PluginSpec.Option(key: member.key, value: try Self.optionText(member.value, named: member.key))
        }
        let log = Texts()
        let plugin = try LuaPlugin(spec: PluginSpec(name: name, options: written + options), locator: locator, limits: limits) { line in
            log.append(line)
        }
        let driven = Driven(plugin: plugin, log: log)
        let id = loaded.withLock { loaded in
            loaded.append(driven)
            return loaded.count
        }
        return .table(array: [], fields: ["id": .integer(Int64(id)), "name": .string(plugin.name),
                                          "options": .table(array: [], fields: plugin.options)])
    }

    /// An option's value as a command line writes it (`sentences=2`).
    private static func optionText(_ value: JSONValue, named key: String) throws -> String {
        switch value {
        case .string(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .number: return value.text
        default: throw HarnessFailure("option \(key) is a string, a number or a boolean, as on the command line")
        }
    }

    /// The plugin a request's `plugin` id names.
    private func driven(_ id: JSONValue?) throws -> Driven {
        guard case .number(let number)? = id, let index = Int(exactly: number) else {
            throw HarnessFailure("call a plugin's methods with a colon: plugin:reply{…}")
        }
        guard let driven = loaded.withLock({ index >= 1 && index <= $0.count ? $0[index - 1] : nil }) else {
            throw HarnessFailure("no plugin \(index) was loaded")
        }
        return driven
    }

    /// `plugin:reply{…}`: one turn through the reply loop; answers what happened.
    private func reply(_ request: JSONValue, on driven: Driven) async throws -> LuaValue {
        let given = ["pieces", "ids", "text"].filter { request.field($0) != nil }
        guard given.count <= 1 else { throw HarnessFailure("a reply is given as one of pieces, ids or text, not \(given.joined(separator: " and "))") }
        if let ids = request.field("ids") {
            let model = try model()
            let tokens = try Self.ids(ids, size: model.vocabulary.vocabularySize)
            driven.tokens.value = tokens.map { ScriptedToken(id: $0, bytes: model.bytes($0)) }
            driven.tokenizer.use(model.vocabulary)
        } else if let text = request.field("text") {
            guard let text = text.string else { throw HarnessFailure("text is the reply as one string, which the model's tokenizer splits") }
            let model = try model()
            driven.tokens.value = model.vocabulary.tokens(of: text).map { ScriptedToken(id: $0, bytes: model.bytes($0)) }
            driven.tokenizer.use(model.vocabulary)
        } else {
            let pieces = try Self.texts(request.field("pieces"), what: "pieces")
            driven.tokens.value = ScriptedToken.numbered(pieces.map { Array($0.utf8) })
            driven.vocabulary.give(Dictionary(pieces.enumerated().map { (Int32($0.offset + 1), $0.element) }) { $1 })
            driven.tokenizer.use(driven.vocabulary)
        }
        var parameters = GenerationParameters()
        for member in request.field("params").flatMap(\.objectMembers) ?? [] {
            guard let declaration = GenerationParameters.declaration(field: member.key) else {
                throw HarnessFailure("params has no parameter \(member.key) (docs/sampling.md lists them by their JSON names)")
            }
            guard let value = LuaPlugin.parameterValue(LuaPlugin.lua(member.value)) else {
                throw HarnessFailure("params.\(member.key) is not a value a parameter takes")
            }
            try declaration.set(value, in: &parameters)
        }
        driven.session.parameters = parameters
        var history = driven.session.history
        var user = request.field("user")?.string ?? ""
        if let messages = request.field("messages") {
            let given = try Self.messages(messages)
            guard let last = given.last, last.role == .user else {
                throw HarnessFailure("messages ends with the user's message the reply answers")
            }
            history = Array(given.dropLast())
            user = last.content
        }
        if let system = request.field("system")?.string { history = history.replacingSystemPrompt(system) }
        driven.session.history = history
        let asked = driven.backend.receivedPrompts.count
        let before = driven.backend.events.count
        let logged = driven.log.value.count
        let collected = try await driven.session.reply(to: user).collect()
        guard let summary = collected.summary else { throw HarnessFailure("the reply ended without its summary") }
        let rewinds = collected.rewinds.map { taken -> LuaValue in
            .table(array: [], fields: ["hook": .string(taken.hook), "text": .string(taken.text), "tokens": .integer(Int64(taken.tokens))])
        }
        // What on_logits did over the reply: the backend records each bias and ban.
        var biases: [Int32: Double] = [:]
        var bans: Set<Int32> = []
        for event in driven.backend.events.dropFirst(before) {
            let parts = event.split(separator: " ")
            if parts.count == 3, parts[0] == "bias", let id = Int32(parts[1]), let delta = Double(parts[2]) { biases[id, default: 0] += delta }
            if parts.count == 2, parts[0] == "ban", let id = Int32(parts[1]) { bans.insert(id) }
        }
        var fields: [String: LuaValue] = [
            "text": .string(summary.text), "stored": .string(summary.storedText), "raw": .string(summary.rawText),
            "shown": .table(array: collected.texts.map(LuaValue.string), fields: [:]),
            "stop_reason": .string(summary.stopReason.description), "tokens": .integer(Int64(summary.statistics.generatedTokens)),
            "rewinds": .table(array: rewinds, fields: [:]),
            "log": .table(array: driven.log.value.dropFirst(logged).map(LuaValue.string), fields: [:]),
            "biased": Self.biased(biases), "banned": .table(array: bans.sorted().map { .integer(Int64($0)) }, fields: [:]),
        ]
        if driven.backend.receivedPrompts.count > asked, let messages = driven.backend.receivedPrompts.last,
           let sent = driven.backend.receivedParameters.last {
            fields["prompt"] = .table(array: [], fields: ["messages": Self.lua(messages), "params": LuaPlugin.luaParameters(sent)])
        }
        return .table(array: [], fields: fields)
    }

    /// `plugin:logits{scores = {{id =, text =, logit =}, …}, text =, tokens =}`: one step's scores
    /// through `on_logits`; answers the biases it added (`biased`, `{id =, delta =}` by id, each
    /// token's summed) and the tokens it banned (`banned`, ids in order).
    private func logits(_ request: JSONValue, on driven: Driven) throws -> LuaValue {
        var candidates: [TokenCandidate] = []
        for item in request.field("scores")?.arrayItems ?? [] {
            guard case .number(let id)? = item.field("id"), let token = Int32(exactly: id), token >= 0,
                  case .number(let logit)? = item.field("logit") else {
                throw HarnessFailure("each score is {id = TOKEN, text = \"…\", logit = NUMBER}")
            }
            candidates.append(TokenCandidate(id: token, text: item.field("text")?.string ?? "", logit: Float(logit)))
        }
        driven.vocabulary.give(Dictionary(candidates.map { ($0.id, $0.text) }) { $1 })
        let scores = GivenScores(candidates, vocabularySize: max(driven.vocabulary.vocabularySize,
                                                                  request.field("vocabulary_size")?.number.map(Int.init) ?? 0))
        let text = request.field("text")?.string ?? ""
        let tokens = request.field("tokens")?.number.map(Int.init) ?? 0
        try driven.plugin.onLogits(scores, reply: ReplyProgress(text: text, tokenCount: tokens, elapsed: .zero))
        let (biases, bans) = scores.recorded
        return .table(array: [], fields: ["biased": Self.biased(biases.mapValues(Double.init)),
                                          "banned": .table(array: bans.sorted().map { .integer(Int64($0)) }, fields: [:])])
    }

    /// Biases as a test reads them: `{id =, delta =}` by id.
    private static func biased(_ biases: [Int32: Double]) -> LuaValue {
        .table(array: biases.sorted { $0.key < $1.key }.map { id, delta in
            .table(array: [], fields: ["id": .integer(Int64(id)), "delta": .number(delta)])
        }, fields: [:])
    }

    /// `plugin:tool_call{name =, arguments = {…}, provider =, round =}`: the policy's decision,
    /// `{run = true}`, `{refuse = REASON}`, `{answer = TEXT}` or `{arguments = {…}}`.
    private func toolCall(_ request: JSONValue, on driven: Driven) throws -> LuaValue {
        let review = try Self.review(request)
        switch try driven.plugin.onToolCall(review) {
        case .run: return .table(array: [], fields: ["run": .boolean(true)])
        case .refuse(let reason): return .table(array: [], fields: ["refuse": .string(reason)])
        case .answer(let text): return .table(array: [], fields: ["answer": .string(text)])
        case .rewrite(let arguments):
            return .table(array: [], fields: ["arguments": LuaPlugin.lua(try JSONValue(parsing: arguments))])
        }
    }

    /// `plugin:tool_result{name =, arguments =, content =, failed =}`: what the model reads
    /// instead (`{content = TEXT}`), or `{}` for the result as it is.
    private func toolResult(_ request: JSONValue, on driven: Driven) throws -> LuaValue {
        let review = try Self.review(request)
        let result = ToolResult(call: review.call, content: request.field("content")?.string ?? "",
                                failed: request.field("failed") == .bool(true), duration: .zero)
        guard let content = try driven.plugin.onToolResult(result, review: review) else { return .table(array: [], fields: [:]) }
        return .table(array: [], fields: ["content": .string(content)])
    }

    /// `plugin:run_tool{name =, arguments = {…}}`: runs one of the plugin's own tools; answers
    /// `{content = TEXT}`, or `{error = MESSAGE}` for a call that failed (as the model would read it).
    private func runTool(_ request: JSONValue, on driven: Driven) throws -> LuaValue {
        let review = try Self.review(request)
        guard driven.plugin.tools.contains(where: { $0.name == review.call.name }) else {
            throw HarnessFailure("\(driven.plugin.name) has no tool \(review.call.name)"
                + (driven.plugin.tools.isEmpty ? "" : "; its tools: " + driven.plugin.tools.map(\.name).joined(separator: ", ")))
        }
        do {
            return .table(array: [], fields: ["content": .string(try driven.plugin.runTool(review.call))])
        } catch {
            return .table(array: [], fields: ["error": .string("\(error)")])
        }
    }

    /// The call a tool request describes.
    private static func review(_ request: JSONValue) throws -> ToolCallReview {
        guard let name = request.field("name")?.string else { throw HarnessFailure("a tool call names its tool: {name = \"…\"}") }
        // An empty Lua table is an empty object, as arguments go.
        let arguments = request.field("arguments").map { $0.arrayItems?.isEmpty == true ? "{}" : $0.text } ?? "{}"
        let call = ToolCall(id: "call_1", name: name, arguments: arguments)
        return ToolCallReview(call: call, provider: request.field("provider")?.string ?? "test",
                              round: request.field("round")?.number.map(Int.init) ?? 1)
    }

    /// A list of token ids (`ids`), each within a vocabulary of `size`.
    private static func ids(_ value: JSONValue, size: Int) throws -> [Int32] {
        if value.objectMembers?.isEmpty == true { return [] }  // an empty Lua table
        guard let items = value.arrayItems else { throw HarnessFailure("ids is a list of token ids") }
        return try items.map { item in
            guard case .number(let number) = item, let id = Int32(exactly: number), id >= 0, Int(id) < size else {
                throw HarnessFailure("ids holds \(item.text), not a token id of the model's \(size)")
            }
            return id
        }
    }

    /// A list of texts (`pieces`), or none.
    private static func texts(_ value: JSONValue?, what: String) throws -> [String] {
        guard let value else { return [] }
        if value.objectMembers?.isEmpty == true { return [] }  // an empty Lua table
        guard let items = value.arrayItems else { throw HarnessFailure("\(what) is a list of texts") }
        return try items.map { item in
            guard let text = item.string else { throw HarnessFailure("\(what) is a list of texts, not of \(item.text)") }
            return text
        }
    }

    /// `messages = {{role = "user", content = "…"}, …}` as messages.
    private static func messages(_ value: JSONValue) throws -> [ChatMessage] {
        try (value.arrayItems ?? []).map { item in
            guard let role = item.field("role")?.string.flatMap(ChatRole.init(rawValue:)), let content = item.field("content")?.string else {
                throw HarnessFailure("each message is {role = \"system\"|\"user\"|\"assistant\", content = \"…\"}")
            }
            return ChatMessage(role, content)
        }
    }

    /// Messages as Lua sees them in `on_prompt`: `{role =, content =}`.
    private static func lua(_ messages: [ChatMessage]) -> LuaValue {
        .table(array: messages.map { .table(array: [], fields: ["role": .string($0.role.rawValue), "content": .string($0.content)]) },
               fields: [:])
    }
}

/// Why the harness could not do what a test asked: the test's mistake, or the plugin's error.
struct HarnessFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension JSONValue {
    /// The member `key` of an object; `nil` for none, or for a value that is not an object.
    func field(_ key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object.members.first { $0.key == key }?.value
    }

    /// An object's members; `nil` for another value.
    var objectMembers: [JSONObject.Member]? {
        if case .object(let object) = self { object.members } else { nil }
    }

    /// An array's items; `nil` for another value.
    var arrayItems: [JSONValue]? {
        if case .array(let items) = self { items } else { nil }
    }

    /// A string's text; `nil` for another value.
    var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// A number; `nil` for another value.
    var number: Double? {
        if case .number(let number) = self { number } else { nil }
    }
}
