/// The hooks' decisions as a trace records them (``HookCall/outcome``), in short.
extension PromptDecision {
    var traced: String {
        switch self {
        case .proceed: "proceed"
        case .answer(let text): "answered \(HookCall.excerpt(text))"
        }
    }
}

extension StopDecision {
    /// The decision about a reply whose text so far is `text`.
    func traced(over text: String) -> String {
        switch self {
        case .proceed: return "proceed"
        case .stop(let reason): return "stop: \(reason)"
        case .rewind(let rewind):
            let taken = String(decoding: text.utf8.dropFirst(max(0, rewind.offset)), as: UTF8.self)
            return "rewind to byte \(rewind.offset), taking back \(HookCall.excerpt(taken))"
        }
    }
}

extension TokenDecision {
    var traced: String {
        let shown = switch replacement {
        case nil: "pass"
        case "": "drop"
        case let text?: "replace with \(HookCall.excerpt(text))"
        }
        return stopReason.map { "\(shown), then stop: \($0)" } ?? shown
    }
}

extension ToolCallDecision {
    var traced: String {
        switch self {
        case .run: "run"
        case .rewrite(let arguments): "run with \(HookCall.excerpt(arguments))"
        case .refuse(let reason): "refuse: \(reason)"
        case .answer(let text): "answer \(HookCall.excerpt(text))"
        }
    }
}

/// A logits view that notes what a hook did to it, for its trace: the tokens it biased and banned.
final class LogitsDecisions: LogitsView {
    private let view: any LogitsView
    private var biased: [(Int32, Float)] = []
    private var banned: [Int32] = []

    init(_ view: any LogitsView) { self.view = view }

    var vocabularySize: Int { view.vocabularySize }
    func top(_ k: Int) -> [TokenCandidate] { view.top(k) }

    func bias(_ token: Int32, by delta: Float) {
        biased.append((token, delta))
        view.bias(token, by: delta)
    }

    func ban(_ token: Int32) {
        banned.append(token)
        view.ban(token)
    }

    /// The decisions, in short: `biased 3 tokens (464 +5.0, …), banned 2 (12, 99)`.
    var description: String {
        var parts: [String] = []
        if !biased.isEmpty {
            let shown = biased.prefix(4).map { "\($0.0) \($0.1 >= 0 ? "+" : "")\($0.1)" }.joined(separator: ", ")
            parts.append("biased \(biased.count) (\(shown)\(biased.count > 4 ? ", …" : ""))")
        }
        if !banned.isEmpty {
            let shown = banned.prefix(4).map(String.init).joined(separator: ", ")
            parts.append("banned \(banned.count) (\(shown)\(banned.count > 4 ? ", …" : ""))")
        }
        return parts.isEmpty ? "looked" : parts.joined(separator: ", ")
    }
}
