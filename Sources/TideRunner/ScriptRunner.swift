import Foundation
import TideCore
import TideFormat
import TideLua
import TideMCP
import TideModels
import TideProvider
import TideScript

/// Replays conversation scripts through the engine: turns, plugins and parameters as the script
/// says, a reply generated for every user turn the script does not answer, each reply checked
/// against its expectations, and a transcript of it all.
///
/// ```swift
/// let runner = ScriptRunner(backends: SequentialBackends(models: ModelCache()))
/// let result = await runner.run(file: "Conversations/capitals.tide")
/// print(result.passed, result.failed, result.transcript?.printed() ?? "")
/// ```
public struct ScriptRunner: Sendable {
    /// The model and context for scripts that do not say (`@model`, `@ctx-size`, `@template`,
    /// `@tool-format` win).
    public var setup = ModelSetup()
    /// Parameters before the script's own directives. The defaults of the script's model (a
    /// preset's, say) apply over these, and ``parameterSettings`` over those.
    public var parameters = GenerationParameters()
    /// The parameters the command line gave, which win over the model's defaults.
    public var parameterSettings: [ParameterSetting] = []
    /// Plugin specs loaded before the script's own `@plugin`s (`--plugin`), after the model's.
    public var plugins: [String] = []
    /// MCP servers (`[NAME:] COMMAND ARGS…`, `--mcp`) whose tools every script is offered, after
    /// its model's (a preset's `mcp`) and before its own `@mcp` servers.
    public var mcp: [String] = []
    /// Where those servers run: each once for the whole run, however many scripts name it.
    public var mcpServers = MCPServerPool()
    /// Where plugin names are looked up.
    public var locator = PluginLocator.standard
    /// The sandbox limits of plugins and `expect-lua:`.
    public var limits = LuaLimits()
    /// The work one `expect: regex` check may do (``RegexBudget``); past it the check fails.
    public var regexBudget = RegexBudget()
    /// What a plugin error does: disable the plugin and go on, or end the script (`--strict`).
    public var hookErrorPolicy = HookErrorPolicy.disableHook
    /// What to do when the conversation outgrows the context.
    public var overflow = ContextOverflowPolicy.fail
    /// Generate recorded replies again instead of checking them by teacher forcing (`--regenerate`).
    public var regenerate = false
    /// For a run of several (`--repeat`): added to the seed in force for every reply (0 where
    /// none is), so that each run samples differently and any run can be reproduced.
    public var seedOffset: UInt32?
    /// The text of the script named ``ScriptFiles/standardInput`` (`tide run -`), read by the caller.
    public var standardInput: String?
    /// Makes what records the exchanges of one script's replay, given the script's file and its
    /// model (the conversation log); `nil` records nothing.
    public var recorder: (@Sendable (_ file: String, _ model: String) -> (any ExchangeRecorder)?)?
    /// Whether plugins count the instructions of their calls exactly, for the costs a report
    /// shows (`tide run --json`'s `plugin_costs`); a traced case's count anyway.
    public var countsInstructions = false
    /// The embedding model of similarity checks (`expect: similar`); `nil` where there is none,
    /// and those checks fail saying so.
    public var embedder: (any TextEmbedder)?
    /// The model that grades `expect: judge` checks when a script names none (`@judge`): a model
    /// or preset name, a path, or a server's base URL (`--judge`); `nil` for the model under test.
    public var judge: String?
    /// Ask the judge again for replies teacher forcing confirms, instead of taking the verdicts
    /// their transcript records (`--rejudge`).
    public var rejudge = false
    /// Where a judge other than the model under test gets its backend; `nil` for ``backends``.
    public var judgeBackends: (any BackendProvider)?
    /// How a case whose server failed in a way that may pass is run again (`--retries`).
    public var retryPolicy = RetryPolicy()
    /// Where the digests of model, plugin and schema files come from (``CaseIdentity``).
    public var fileDigest = FileDigest()
    /// Looks a case up once its identity is known, before its context is made, its MCP servers
    /// started or anything generated: a result kept from before (a resumed run's journal, a case
    /// kept whole in the cache) to give instead of replaying, or `nil` to replay.
    /// Only with one is a case identified (``ScriptResult/identity``).
    public var reuse: (@Sendable (CaseIdentity) async -> ScriptResult?)?
    /// The reply cache of a case, given its identity (`tide run --cache`): the replies its
    /// sessions may give again rather than generate (``ReplyCache``), scoped to what decides
    /// them besides the prompt; `nil` for none. With one, every case is identified.
    public var replyCache: (@Sendable (CaseIdentity) -> (any ReplyCache)?)?
    /// Where a case's model keeps its states after long prompts, given the scope they hold in
    /// (its model file's digest and its setup): a prompt that starts as one evaluated in an
    /// earlier run loads that start (``PromptStateStore``); `nil` for nowhere.
    public var promptStates: (@Sendable (String) -> any PromptStateStore)?
    /// Where backends come from.
    public let backends: any BackendProvider

    /// A runner taking backends from `backends`.
    public init(backends: any BackendProvider) {
        self.backends = backends
    }

    /// Reads and replays the script at `file`. With `golden` (a recorded transcript), each reply is
    /// also compared with the recorded reply for the same turn.
    public func run(file: String, golden: ConversationScript? = nil,
                    events: @escaping @Sendable (RunEvent) -> Void = { _ in }) async -> ScriptResult
    {
        let script: ConversationScript
        do {
            script = try ScriptFiles.parse(file, standardInput: standardInput)
        } catch var error as ScriptParseError {
            error.file = file
            return ScriptResult(file: file, failure: "\(error)")
        } catch {
            return ScriptResult(file: file, failure: "\(error)")
        }
        return await run(script, file: file, golden: golden, events: events)
    }

    /// Replays one case of a run (``ScriptCases``): its script with its row's values, or the
    /// failure that kept it from parsing. A case whose server failed in a way that may pass is
    /// run again from its start, as ``retryPolicy`` says; the result counts the retries, and one
    /// that still fails says so.
    public func run(_ scriptCase: ScriptCase, golden: ConversationScript? = nil, trace: (any HookTrace)? = nil,
                    events: @escaping @Sendable (RunEvent) -> Void = { _ in }) async -> ScriptResult
    {
        var result: ScriptResult
        var retries = 0
        while true {
            switch scriptCase.script {
            case .success(let script): result = await run(script, file: scriptCase.file, golden: golden, trace: trace, events: events)
            case .failure(let failure): result = ScriptResult(file: scriptCase.file, failure: failure.description)
            }
            guard let transience = result.transience, !Task.isCancelled,
                  let wait = retryPolicy.wait(before: retries + 1, after: transience) else { break }
            retries += 1
            try? await Task.sleep(for: wait)
        }
        result.retries = retries
        if retries > 0, let failure = result.failure {
            result.failure = failure + " (still failing after \(retries) retr\(retries == 1 ? "y" : "ies"))"
        }
        result.row = scriptCase.row?.name
        return result
    }

    /// Replays a parsed script; `file` names it in messages. With `trace`, every hook call of
    /// its replies is recorded there.
    public func run(_ script: ConversationScript, file: String, golden: ConversationScript? = nil, trace: (any HookTrace)? = nil,
                    events: @escaping @Sendable (RunEvent) -> Void = { _ in }) async -> ScriptResult
    {
        let reads = OutsideReads()
        var result = await reads.observe { await replay(script, file: file, golden: golden, trace: trace, events: events) }
        if reads.happened, result.determined == true { result.determined = false }
        return result
    }

    /// ``run(_:file:golden:trace:events:)``, but for what Lua code read while it ran.
    private func replay(_ script: ConversationScript, file: String, golden: ConversationScript?, trace: (any HookTrace)?,
                        events: @escaping @Sendable (RunEvent) -> Void) async -> ScriptResult
    {
        var result = ScriptResult(file: file, name: script.name)
        var replies: [Int: RecordedReply] = [:]
        do {
            var prepared = try await prepare(script, file: file)
            result.model = prepared.setup.model
            let model: any ChatModel
            do {
                model = try await backends.model(for: prepared.setup)
            } catch {
                throw ScriptRunError("\(file): \(error)", cause: error)
            }
            // Identified only for a caller that keeps or reuses cases: reading a model file to its
            // digest is not free. A case given back is given before its context is made and its
            // MCP servers started.
            if reuse != nil || replyCache != nil || promptStates != nil {
                let identity = identity(of: prepared, file: file, model: model, golden: golden)
                result.identity = identity
                if let kept = await reuse?(identity) { return kept }
            }
            try await connectMCPServers(of: &prepared, file: file)
            let backend: any ChatBackend
            do {
                backend = try await backends.backend(on: model, setup: prepared.setup)
            } catch {
                throw ScriptRunError("\(file): \(error)", cause: error)
            }
            let cache = result.identity.flatMap { replyCache?($0) }
            if let identity = result.identity, let states = promptStates?(FileDigest.of([identity.model, String(describing: prepared.setup)])) {
                backend.keepPromptStates(in: states)
            }
            var judged = false
            try await withTaskExecutorPreference(backends.replayExecutor(for: backend)) {
                var replay = Replay(runner: self, prepared: prepared, backend: backend, model: model, file: file,
                                    golden: golden.map(Self.recordedReplies) ?? [], cache: cache, trace: trace, events: events)
                try await replay.run(&result, replies: &replies)
                judged = replay.judge != nil
            }
            if cache != nil { result.determined = !judged && Self.isDetermined(result, prepared: prepared) }
        } catch {
            result.failure = "\(error)"
            result.remedies = Remedy.of(error)
            result.transience = Transience.of(error)
        }
        var transcript = script.transcript(replies: replies).recordingVariables()
        if let failure = result.failure {
            transcript.entries.append(ScriptEntry(.comment(" tide run stopped here: " + failure.replacingOccurrences(of: "\n", with: " "))))
        }
        result.transcript = transcript
        return result
    }

    /// Whether the replay of `prepared` gave `result` by what its identity holds alone
    /// (``ScriptResult/determined``), a judge's verdicts and Lua's reads of the clock aside.
    private static func isDetermined(_ result: ScriptResult, prepared: PreparedScript) -> Bool {
        let checks = prepared.interpreter.steps.flatMap { step -> [LocatedExpectation] in
            if case .reply(let reply) = step { reply.expectations } else { [] }
        }
        return result.failure == nil && prepared.mcpServers.isEmpty
            && !checks.contains { $0.expectation.check.kind.needs.contains(.speed) }
            && result.replies.allSatisfy { $0.statistics.determined == true && $0.hookFailures.isEmpty }
    }

    /// The replies a golden transcript recorded, in order.
    static func recordedReplies(_ golden: ConversationScript) -> [RecordedReply?] {
        golden.steps.compactMap { step in
            if case .reply(let reply) = step { .some(reply.recorded) } else { nil }
        }
    }

    /// Everything that can be checked before the model runs: the model setup, every plugin
    /// (loaded now, attached when its `@plugin` line is reached), every `@unload`, every format
    /// file, every Lua expectation and every schema an expectation names.
    func prepare(_ script: ConversationScript, file: String) async throws -> PreparedScript {
        var setup = setup
        var judge = judge
        for step in script.steps {
            switch step {
            case .directive(.model(let model), _): setup.model = model
            case .directive(.judge(let target), _): judge = target
            case .directive(.contextSize(let size), _): setup.contextSize = size
            case .directive(.template(let template), _): setup.template = template
            case .directive(.toolFormat(let format), _): setup.toolFormat = format
            default: break
            }
        }
        let scriptServers = script.entries.compactMap { entry in
            if case .directive(.mcp(let server)) = entry.item { Sourced(server, from: "\(entry.line): @mcp") } else { nil }
        }
        var sources = RecipeSources(setup: setup, commandLine: { [parameterSettings] in
            var parameters = $0
            for setting in parameterSettings { setting.apply(to: &parameters) }
            return parameters
        }, plugins: plugins, mcpServers: mcp, scriptMCPServers: scriptServers)
        sources.base = parameters
        let recipe: ConversationRecipe
        do {
            recipe = try sources.resolve()
        } catch {
            throw ScriptRunError("\(file): \(error)", cause: error)
        }
        let maker = PluginMaker(locator: locator, limits: limits)
        let commandLinePlugins: [LuaPlugin]
        do {
            commandLinePlugins = try maker.plugins(recipe.plugins, log: Self.log)
        } catch {
            throw ScriptRunError("\(file): \(error)")
        }
        let interpreter = try ScriptInterpreter(script, file: file, loaded: commandLinePlugins.map(\.name), maker: maker, log: Self.log)
        var prepared = PreparedScript(script: script, interpreter: interpreter, setup: setup, parameters: recipe.parameters,
                                      commandLinePlugins: commandLinePlugins, judge: judge)
        do {
            prepared.mcpServers = try MCPServerSpec.reading(recipe.mcpServers).map { spec in
                (spec, recipe.mcpServers.first { (try? MCPServerSpec(parsing: $0.text)) == spec })
            }
        } catch {
            throw ScriptRunError("\(file):\(error)")
        }
        for case .reply(let reply) in interpreter.steps {
            for located in reply.expectations { try prepare(located, of: file, into: &prepared) }
        }
        return prepared
    }

    /// Connects the MCP servers `prepared` names (each started once for the whole run), and
    /// offers their tools.
    private func connectMCPServers(of prepared: inout PreparedScript, file: String) async throws {
        for (spec, setting) in prepared.mcpServers {
            do {
                prepared.toolProviders.append(MCPServerTools(connection: try await mcpServers.connection(for: spec)))
            } catch {
                throw ScriptRunError("\(file):\(setting.map { SourcedError($0, error).description } ?? "\(error)")")
            }
        }
    }

    /// Compiles an `expect-lua:` expression, and loads the JSON schema a check reads (from the
    /// file it names, relative to the script's folder, or written inline) unless it is loaded.
    private func prepare(_ located: LocatedExpectation, of file: String, into prepared: inout PreparedScript) throws {
        let check = located.expectation.check
        guard let text = check.argument.text else { return }
        switch check.kind.form {
        case .luaExpression:
            do {
                _ = try LuaPredicate(text, limits: limits)
            } catch {
                throw ScriptRunError("\(file):\(located.line): expect-lua does not compile: \(error.message)")
            }
        case .schemaFile, .schema:
            guard prepared.schemas[text] == nil else { return }
            do {
                let schema = try check.namedFile.map {
                    try ReplyFormat.reading(.jsonSchema, file: $0, from: URL(fileURLWithPath: file).deletingLastPathComponent()).definition
                } ?? text
                prepared.schemas[text] = try JSONSchema(JSONValue(parsing: schema))
            } catch {
                throw ScriptRunError("\(file):\(located.line): expect: \(check.kind) \(text): \(error)")
            }
        case .none, .text, .word, .texts, .count, .measure, .similarity, .textAndSimilarity: break
        }
    }

    /// Plugin log lines go to standard error.
    static let log: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// A script checked and ready to replay.
struct PreparedScript {
    var script: ConversationScript
    /// Its steps, with their plugins loaded.
    var interpreter: ScriptInterpreter
    var setup: ModelSetup
    /// The parameters it starts from: the runner's, the model's defaults, the command line's.
    var parameters: GenerationParameters
    /// The model's plugins and the `--plugin` instances, loaded first.
    var commandLinePlugins: [LuaPlugin]
    /// The MCP servers of the script's model, of `--mcp` and of its `@mcp` lines, each with the
    /// setting that named it.
    var mcpServers: [(spec: MCPServerSpec, setting: Sourced?)] = []
    /// Their tools, once they are connected.
    var toolProviders: [any ToolProvider] = []
    /// The judge of its `expect: judge` checks (``ScriptRunner/judge``, or its `@judge`).
    var judge: String?
    /// The schemas `expect: json-schema` names, by file as written.
    var schemas: [String: JSONSchema] = [:]
}

/// A script that could not be replayed to its end.
public struct ScriptRunError: RemediableError, PossiblyTransientError, Sendable {
    public let description: String
    /// The remedies of the error behind this one.
    public let remedies: [Remedy]
    /// The transience of the error behind this one: a server's that may answer when asked again.
    public let transience: Transience?

    /// `description`, with the remedies and transience of the error that caused it, if any.
    init(_ description: String, cause: (any Error)? = nil) {
        self.description = description
        remedies = cause.map(Remedy.of) ?? []
        transience = cause.flatMap(Transience.of)
    }
}
