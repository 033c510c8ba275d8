import TideCore
import TideFormat
import TideModels
import TideProvider

/// How `expect: judge "RUBRIC"` is decided: a judge model reads the user turn, the reply and the
/// rubric, and answers under a JSON schema — `{"pass": true|false, "reason": "…"}` — so that any
/// model, even a small one, answers in form. Its parameters are fixed (``parameters``): greedy
/// (temperature 0, no repetition penalty), at most ``maximumTokens`` tokens, no seed to vary. Its
/// plugins are its model's own (a preset's); the script's and the command line's are not applied.
/// A judge that does not answer in form (an error, a reply cut short, a verdict that is not one)
/// is a check that fails saying so, never a pass.
struct Judge {
    /// The judge's backend, free while no reply of the script runs.
    let backend: any ChatBackend
    /// Its model's plugins (a preset's), fresh for each verdict.
    let hooks: HookFactory

    /// A verdict and why; `recorded` when it was taken from the transcript for a reply teacher
    /// forcing confirmed, rather than asked for.
    struct Verdict: Sendable, Hashable {
        var passed: Bool
        var reason: String
        var recorded = false
    }

    /// The most tokens a verdict may take.
    static let maximumTokens = 256

    /// What the judge is told it is.
    static let instructions = """
        You grade an assistant's reply against a rubric. You are shown the user's message, the \
        assistant's reply and the rubric. Decide whether the reply meets the rubric; judge only \
        what the rubric asks. Answer with a JSON object: "pass" is true or false, and "reason" \
        says what in the reply decided it.
        """

    /// The verdict's shape.
    static let format: ReplyFormat = {
        do {
            return try ReplyFormat.jsonSchema("""
                {"type": "object", "properties": {"pass": {"type": "boolean"}, "reason": {"type": "string", "maxLength": 400}},
                 "required": ["pass", "reason"], "additionalProperties": false}
                """)
        } catch {
            preconditionFailure("the verdict's schema is Tide's own: \(error)")
        }
    }()

    /// The judge's fixed parameters.
    static var parameters: GenerationParameters {
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.repeatPenalty = 1
        parameters.maxTokens = maximumTokens
        parameters.format = format
        return parameters
    }

    /// The setup of the judge `target` names — a model or preset name, a `.gguf` path, or a
    /// server's base URL (`http://…`: the server's only model) — with `base`'s context options.
    /// When `base` runs on a server (`--remote`) that lists a model of the name, the judge is
    /// that model of the same server.
    static func setup(naming target: String, over base: ModelSetup) async throws -> ModelSetup {
        var setup = base
        setup.template = nil
        setup.toolFormat = nil
        if let server = base.server, !target.contains("://"),
           let name = try await server.modelNames(timeout: base.remoteTimeout).first(where: { $0.lowercased() == target.lowercased() })
        {
            setup.model = name
            setup.replicas = []
            return setup
        }
        guard target.contains("://") else {
            setup.model = target
            setup.server = nil
            setup.replicas = []
            return setup
        }
        let server = try RemoteServer(parsing: target)
        setup.model = try await server.onlyModel(remedy: "name a remote entry of models.json that says which, as the judge")
        setup.server = server
        setup.replicas = []
        return setup
    }

    /// What the judge reads.
    static func question(user: String, reply: String, rubric: String) -> String {
        "The user's message:\n<<<\n\(user)\n>>>\n\nThe assistant's reply:\n<<<\n\(reply)\n>>>\n\nThe rubric: \(rubric)\n\n"
            + "Does the reply meet the rubric?"
    }

    /// The verdict on `reply` to `user` against `rubric`, or why the judge gave none.
    func verdict(rubric: String, user: String, reply: String) async -> Result<Verdict, JudgeFailure> {
        let session: ChatSession
        do {
            session = ChatSession(backend: backend, systemPrompt: Self.instructions, parameters: Self.parameters, hooks: try hooks.hooks(log: ScriptRunner.log))
        } catch {
            return .failure(JudgeFailure("its plugins did not load: \(error)"))
        }
        let answer: CollectedReply
        do {
            answer = try await session.reply(to: Self.question(user: user, reply: reply, rubric: rubric)).collect()
        } catch {
            return .failure(JudgeFailure("\(error)"))
        }
        guard let summary = answer.summary else { return .failure(JudgeFailure("its reply ended without a summary")) }
        return Self.verdict(in: answer.text, stopReason: summary.stopReason)
    }

    /// The verdict a judge's reply `text` gives, or why it gives none.
    static func verdict(in text: String, stopReason: StopReason) -> Result<Verdict, JudgeFailure> {
        if stopReason == .maxTokens {
            return .failure(JudgeFailure("its verdict was cut at \(maximumTokens) tokens: \(text.prefix(120).debugDescription)"))
        }
        guard case .object(let fields)? = try? JSONValue(parsing: text),
              case .bool(let passed)? = fields["pass"], case .string(let reason)? = fields["reason"]
        else { return .failure(JudgeFailure("it answered \(text.prefix(120).debugDescription), not {\"pass\": …, \"reason\": …}")) }
        return .success(Verdict(passed: passed, reason: reason))
    }
}

/// Why a judge gave no verdict.
struct JudgeFailure: Error, Sendable, Hashable, CustomStringConvertible {
    let reason: String
    init(_ reason: String) { self.reason = reason }
    var description: String { "the judge gave no verdict: \(reason)" }
}
