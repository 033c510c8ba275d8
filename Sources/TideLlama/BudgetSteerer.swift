import Synchronization
import TideCore
import TideFormat

/// Keeps a reply under a format able to finish within `max-tokens`: it follows the reply through
/// the format's grammar (``GrammarCursor``) and, once the tokens left are about to be too few
/// for the grammar's shortest completion and the model's end, lets the sampler choose only
/// tokens that leave room for it — and, when exactly that room is left, the completion's own
/// tokens. A string the model is writing is then closed, missing required members get their
/// shortest values, and the reply ends valid, with `eos`, at `max-tokens` at the latest, whenever
/// the shortest completion fits at all.
///
/// A value: the sampler keeps a copy per rewind point.
struct BudgetSteerer {
    /// Candidates kept per position near the end: the best-scored tokens the grammar allows.
    static let candidates = 8
    /// The best-scored tokens searched for them.
    static let searched = 256
    /// Bytes beyond the shortest completion within which positions are checked (a token that
    /// lengthens the completion by more than this from farther away is caught at the next step).
    static let margin = 64

    private var cursor: GrammarCursor
    private let maxTokens: Int
    /// Reply positions chosen so far.
    private var position = 0
    /// The completion's remaining tokens, once only they fit.
    private var plan: [Int32] = []
    /// What steering did so far.
    private(set) var outcome: BudgetSteering?

    /// A steerer for a reply that follows `grammar` (GBNF text) from its first token, within
    /// `maxTokens`; `nil` when the budget is unbounded.
    init?(grammar text: String, maxTokens: Int) {
        guard maxTokens < Int.max / 2, let grammar = Self.compiled(text) else { return nil }
        cursor = GrammarCursor(grammar)
        self.maxTokens = maxTokens
    }

    /// Tokens of the shortest reply `format` allows, the model's end included; `nil` when the
    /// format's grammar cannot be followed.
    static func shortestReplyTokens(_ format: ReplyFormat, model: LlamaModel) -> Int? {
        guard let grammar = compiled(format.grammar), let completion = GrammarCursor(grammar).shortestCompletion,
              let tokens = try? model.continuationTokens(utf8: completion[...])
        else { return nil }
        return tokens.count + 1
    }

    /// Narrows `scores` (after the hooks' adjustments) to the tokens that leave room to finish.
    mutating func restrict(_ scores: UnsafeMutablePointer<Float>, model: LlamaModel) {
        let left = maxTokens - position
        guard left > 0, !cursor.isDead else { return }
        let top = { TopScores.best(1, of: scores, count: model.facts.vocabularySize).first?.id }
        if let next = plan.first {
            keepOnly([next], scores, model: model, top: top())
            return
        }
        let end = cursor.isComplete ? bestEnd(scores, model: model) : nil
        if left == 1, let end {
            keepOnly([end], scores, model: model, top: top())
            return
        }
        guard let needed = cursor.shortestCompletionLength, needed + 1 + Self.margin >= left,
              let completion = cursor.shortestCompletion
        else { return }
        let tokens = (try? model.continuationTokens(utf8: completion[...])) ?? []
        // Past the point where even the shortest completion fits, steering could not save the
        // reply: the model's own words are left, and the reply is reported incomplete.
        guard tokens.count + 1 <= left else { return }
        if !tokens.isEmpty, tokens.count + 1 == left {
            // Only the completion and the end fit: they are the rest of the reply.
            plan = tokens
            keepOnly([tokens[0]], scores, model: model, top: top())
            return
        }
        // The best-scored tokens the grammar allows, up to ``candidates`` of them, and which leave room.
        var kept: [Int32] = []
        var allowed = 0
        var choice: Int32?
        for candidate in TopScores.best(Self.searched, of: scores, count: model.facts.vocabularySize) {
            guard allowed < Self.candidates, candidate.logit > -.infinity else { break }
            guard let fits = room(after: candidate.id, left: left, model: model) else { continue }
            allowed += 1
            // The model's choice is its best token the grammar allows.
            if choice == nil { choice = candidate.id }
            if fits { kept.append(candidate.id) }
        }
        for sure in [tokens.first, end].compactMap({ $0 }) where !kept.contains(sure) { kept.append(sure) }
        keepOnly(kept, scores, model: model, top: choice)
    }

    /// Moves past the token chosen at this position.
    mutating func accept(_ token: Int32, model: LlamaModel) {
        position += 1
        if let next = plan.first {
            if next == token { plan.removeFirst() } else { plan = [] }
        }
        if !model.isEndOfGeneration(token) { cursor.advance(model.tokenBytes(token)) }
    }

    /// Whether, after `token`, the shortest completion and the end still fit in the positions
    /// left; `nil` when the grammar refuses the token.
    private func room(after token: Int32, left: Int, model: LlamaModel) -> Bool? {
        if model.isEndOfGeneration(token) { return cursor.isComplete ? true : nil }
        let bytes = model.tokenBytes(token)
        guard !bytes.isEmpty else { return nil }
        var trial = cursor
        guard trial.advance(bytes), let needed = trial.shortestCompletionLength else { return nil }
        // Every byte is a token at worst: the quick answer, before tokenizing the completion.
        if needed + 1 <= left - 1 { return true }
        guard let completion = trial.shortestCompletion,
              let tokens = try? model.continuationTokens(utf8: completion[...])
        else { return false }
        return tokens.count + 1 <= left - 1
    }

    /// The end-of-generation token the model scores highest.
    private func bestEnd(_ scores: UnsafeMutablePointer<Float>, model: LlamaModel) -> Int32? {
        model.endOfGenerationTokens.max { scores[Int($0)] < scores[Int($1)] }
    }

    /// Leaves only `kept` their scores (none when a hook banned them all: steering then stands
    /// aside), and counts the position as steered when the model's choice, `top`, is not kept.
    private mutating func keepOnly(_ kept: [Int32], _ scores: UnsafeMutablePointer<Float>, model: LlamaModel, top: Int32?) {
        let allowed = kept.filter { scores[Int($0)] > -.infinity }
        guard !allowed.isEmpty else {
            plan = []
            return
        }
        mask(scores, keeping: allowed, count: model.facts.vocabularySize)
        // Where the model's own choice leaves room (or is not known: none of the tokens searched
        // is allowed) nothing is steered, though no other token may take its place.
        guard let top, !allowed.contains(top) else { return }
        var steering = outcome ?? BudgetSteering(from: position, tokens: 0)
        steering.tokens += 1
        outcome = steering
    }

    private func mask(_ scores: UnsafeMutablePointer<Float>, keeping kept: [Int32], count: Int) {
        let saved = kept.map { scores[Int($0)] }
        for token in 0..<count { scores[token] = -.infinity }
        for (token, score) in zip(kept, saved) { scores[Int(token)] = score }
    }

    /// Compiled grammars by their text, the last few kept: a format's grammar is compiled once,
    /// not for every reply.
    private static let cache = Mutex<[String: CompiledGrammar]>([:])

    private static func compiled(_ text: String) -> CompiledGrammar? {
        if let known = cache.withLock({ $0[text] }) { return known }
        guard let grammar = try? CompiledGrammar(gbnf: text) else { return nil }
        cache.withLock { grammars in
            if grammars.count >= 16 { grammars.removeAll() }
            grammars[text] = grammar
        }
        return grammar
    }
}

