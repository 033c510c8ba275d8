/// Follows a text through a grammar byte by byte, as llama.cpp's grammar sampler does (a set of
/// pushdown stacks over the grammar's rules), and says the shortest text that would complete it:
/// what a reply under a format needs at the least before it may end.
///
/// The grammar is compiled once (``CompiledGrammar``); a cursor is a small value, cheap to copy,
/// so a caller can try a token's bytes on a copy. A cursor that follows more than
/// ``maximumStacks`` ways through the grammar at once gives up (``isLost``) rather than slow a
/// reply down: a grammar that ambiguous is not one a completion can be computed for cheaply.
public struct GrammarCursor: Sendable {
    /// The most stacks followed at once.
    public static let maximumStacks = 512
    /// The most stack positions one character's step may copy while it expands rules: 262,144.
    /// Past it the cursor is lost: a grammar of long optional runs (`[a]?{2000}`) would otherwise
    /// cost seconds per character.
    public static let maximumWork = 1 << 18

    private let grammar: CompiledGrammar
    /// The ways through the grammar the text so far can take: positions of the elements still
    /// to match, innermost last; each top is a character class (or the stack is empty: the text
    /// may end here).
    private var stacks: [[Int32]]
    /// The bytes of a UTF-8 sequence begun but not finished.
    private var pending: [UInt8] = []
    /// Set when the stacks grew past ``maximumStacks``, or a step past ``maximumWork`` or the
    /// depth the checker allows.
    public private(set) var isLost = false

    /// A cursor at the start of `grammar`'s root rule.
    public init(_ grammar: CompiledGrammar) {
        self.grammar = grammar
        stacks = grammar.startStacks
        isLost = grammar.startIsLost
    }

    /// Whether the text so far is refused (no way through the grammar is left) or the cursor lost.
    public var isDead: Bool { stacks.isEmpty || isLost }

    /// Whether the grammar accepts the text so far as a whole.
    public var isComplete: Bool { pending.isEmpty && !isLost && stacks.contains { $0.isEmpty } }

    /// Moves over `bytes`; false (and the cursor dead) when the grammar refuses them.
    @discardableResult
    public mutating func advance(_ bytes: some Sequence<UInt8>) -> Bool {
        for byte in bytes {
            guard !isDead else { return false }
            pending.append(byte)
            switch UTF8Sequence.decode(pending) {
            case .incomplete:
                continue
            case .invalid:
                stacks = []
            case .scalar(let codePoint):
                pending = []
                advance(codePoint)
            }
        }
        return !isDead
    }

    private mutating func advance(_ codePoint: UInt32) {
        var next = Set<[Int32]>()
        var work = 0
        for stack in stacks {
            guard let top = stack.last, case .characters(let ranges) = grammar.elements[Int(top)], ranges.contains(codePoint) else {
                continue
            }
            var moved = stack
            moved[moved.count - 1] = top + 1
            guard grammar.settle(moved, into: &next, work: &work) else {
                isLost = true
                return
            }
            if next.count > Self.maximumStacks { break }
        }
        isLost = next.count > Self.maximumStacks
        stacks = Array(next)
    }

    /// The fewest bytes that complete the text (0 when it may end here); `nil` when dead.
    public var shortestCompletionLength: Int? {
        guard !isDead else { return nil }
        if !pending.isEmpty { return pendingCompletion.map(\.count) }
        return stacks.map(grammar.shortestLength(of:)).min()
    }

    /// The most bytes ``shortestCompletion`` writes out: 1 MiB, more than any reply a budget
    /// could be steered to finish (a grammar of a few rules can need 2⁴⁰ bytes to complete).
    public static let maximumCompletion = 1 << 20

    /// The shortest text (as UTF-8) that completes the text so far; `nil` when dead, or when it
    /// is longer than ``maximumCompletion``.
    public var shortestCompletion: [UInt8]? {
        guard !isDead else { return nil }
        if !pending.isEmpty { return pendingCompletion }
        guard let best = stacks.min(by: { grammar.shortestLength(of: $0) < grammar.shortestLength(of: $1) }),
              grammar.shortestLength(of: best) <= Self.maximumCompletion
        else { return nil }
        return grammar.shortestText(of: best)
    }

    /// With a UTF-8 sequence half written: its smallest ending the grammar takes, then the
    /// shortest completion from there.
    private var pendingCompletion: [UInt8]? {
        let length = UTF8Sequence.length(first: pending[0])
        var candidate = pending + [UInt8](repeating: 0x80, count: max(length - pending.count, 0))
        for _ in 0..<64 {
            var copy = self
            copy.pending = []
            if copy.advance(candidate), let rest = copy.shortestCompletion { return Array(candidate.dropFirst(pending.count)) + rest }
            guard let last = candidate.indices.last, candidate[last] < 0xBF else { return nil }
            candidate[last] += 1
        }
        return nil
    }
}

/// A grammar flattened for ``GrammarCursor``: every alternative a run of elements (one character
/// class per code point, a rule reference, or the end), groups and repetitions made into rules
/// of their own as llama.cpp makes them, and each position's shortest completion computed once.
public final class CompiledGrammar: Sendable {
    /// One item of a flattened alternative.
    enum Element: Sendable {
        case characters(CharacterRanges)
        case rule(Int)
        /// A model token: it matches no text, so a way through it is never completed by text.
        case never
        case end
    }

    /// A length standing for "cannot be completed".
    static let unreachable = Int.max / 4

    let elements: [Element]
    /// Per rule, where each of its alternatives starts in ``elements``.
    let alternatives: [[Int]]
    /// Per position in ``elements``: the fewest bytes from there to the end of its alternative.
    let shortestSuffix: [Int]
    /// Per rule: the alternative its shortest text takes.
    let shortestAlternative: [Int]
    /// Per character-class position: the character the shortest text uses there.
    let cheapestCharacter: [Int: UInt32]
    let startStacks: [[Int32]]
    /// Whether a cursor is lost from the start (too many ways, or too much work to find them).
    let startIsLost: Bool

    /// Compiles GBNF text (checked as ``Grammar`` checks it), starting at `root`.
    public convenience init(gbnf text: String) throws(SyntaxError) {
        self.init(try GrammarParser.parse(text))
    }

    init(_ parsed: ParsedGrammar) {
        var builder = Flattener(rules: parsed.rules)
        builder.flattenAll()
        elements = builder.elements
        alternatives = builder.alternatives
        (shortestSuffix, shortestAlternative, cheapestCharacter) = Self.shortest(elements: builder.elements,
                                                                                 alternatives: builder.alternatives)
        let root = parsed.symbol(named: Grammar.rootRule) ?? 0
        var start = Set<[Int32]>()
        var work = 0
        var settled = true
        if root < alternatives.count {
            for alternative in alternatives[root] where settled {
                settled = Self.settle([Int32(alternative)], elements: elements, alternatives: alternatives, into: &start,
                                      work: &work)
            }
        }
        startStacks = Array(start)
        startIsLost = !settled || start.count > GrammarCursor.maximumStacks
    }

    /// Expands `stack` until its top is a character class (or it is empty), adding each result;
    /// `false` (the cursor lost) when that took more than ``GrammarCursor/maximumWork`` (counted
    /// in `work`), more than ``GrammarCursor/maximumStacks`` ways, or nested deeper than
    /// ``GrammarParser/maximumEntryDepth``.
    func settle(_ stack: [Int32], into result: inout Set<[Int32]>, work: inout Int) -> Bool {
        Self.settle(stack, elements: elements, alternatives: alternatives, into: &result, work: &work)
    }

    private static func settle(_ stack: [Int32], elements: [Element], alternatives: [[Int]], into result: inout Set<[Int32]>,
                               work: inout Int) -> Bool
    {
        let limit = GrammarCursor.maximumStacks
        var pending = [stack]
        var seen = Set<[Int32]>()
        while let current = pending.popLast() {
            work += current.count + 1
            guard work <= GrammarCursor.maximumWork, result.count <= limit, seen.count <= limit * 8 else { return false }
            guard seen.insert(current).inserted else { continue }
            guard let top = current.last else {
                result.insert(current)
                continue
            }
            switch elements[Int(top)] {
            case .characters:
                result.insert(current)
            case .never:
                continue
            case .end:
                pending.append(Array(current.dropLast()))
            case .rule(let rule):
                // As deep as the checker lets rules nest at first; deeper (a grammar nesting as
                // it reads, or a long optional run expanded) the cursor is lost, not dead.
                guard current.count < GrammarParser.maximumEntryDepth else { return false }
                var base = Array(current.dropLast())
                if case .end = elements[Int(top) + 1] {} else { base.append(top + 1) }
                for alternative in alternatives[rule] { pending.append(base + [Int32(alternative)]) }
            }
        }
        return true
    }

    /// The fewest bytes completing `stack`.
    func shortestLength(of stack: [Int32]) -> Int {
        stack.reduce(0) { min($0 + shortestSuffix[Int($1)], Self.unreachable) }
    }

    /// The shortest text completing `stack` (innermost position last), written without recursion;
    /// a rule whose shortest text is empty is not entered, so the work is bounded by the text's
    /// length times the depth of the rules it goes through.
    func shortestText(of stack: [Int32]) -> [UInt8] {
        var text: [UInt8] = []
        var resume = stack.map(Int.init)
        while var position = resume.popLast() {
            walk: while true {
                switch elements[position] {
                case .end, .never:
                    break walk
                case .characters:
                    if let character = cheapestCharacter[position], let scalar = Unicode.Scalar(character) {
                        text.append(contentsOf: Array(String(Character(scalar)).utf8))
                    }
                case .rule(let rule):
                    let start = alternatives[rule][shortestAlternative[rule]]
                    if shortestSuffix[start] > 0 {
                        resume.append(position + 1)
                        resume.append(start)
                        break walk
                    }
                }
                position += 1
            }
        }
        return text
    }

    /// Each position's shortest suffix and each rule's shortest alternative, by Knuth's
    /// generalization of Dijkstra's algorithm (rules settled shortest first, an alternative
    /// becoming a candidate once all the rules it uses are settled: O(n log n), where relaxing
    /// until nothing shortens took a pass per level of a chain of rules); and the character each
    /// class contributes.
    private static func shortest(elements: [Element], alternatives: [[Int]]) -> ([Int], [Int], [Int: UInt32]) {
        var characters: [Int: UInt32] = [:]
        var characterLength = [Int](repeating: unreachable, count: elements.count)
        for (position, element) in elements.enumerated() {
            if case .characters(let ranges) = element, let character = cheapest(in: ranges),
               let scalar = Unicode.Scalar(character) {
                characters[position] = character
                characterLength[position] = UTF8.width(scalar)
            }
        }
        // Per alternative: its length so far (characters, then each settled rule) and how many
        // of its rule references are not settled yet; per rule, the alternatives that use it.
        var length: [[Int]] = alternatives.map { $0.map { _ in 0 } }
        var unsettled: [[Int]] = alternatives.map { $0.map { _ in 0 } }
        var users: [[(rule: Int, alternative: Int)]] = Array(repeating: [], count: alternatives.count)
        var queue = ShortestQueue()
        for (rule, starts) in alternatives.enumerated() {
            for (index, start) in starts.enumerated() {
                var position = start
                loop: while true {
                    switch elements[position] {
                    case .end: break loop
                    case .never: length[rule][index] = unreachable
                    case .characters: length[rule][index] = min(length[rule][index] + characterLength[position], unreachable)
                    case .rule(let used):
                        unsettled[rule][index] += 1
                        users[used].append((rule, index))
                    }
                    position += 1
                }
                if unsettled[rule][index] == 0 && length[rule][index] < unreachable {
                    queue.push((length[rule][index], rule, index))
                }
            }
        }
        var ruleLength = [Int](repeating: unreachable, count: alternatives.count)
        var choice = [Int](repeating: 0, count: alternatives.count)
        while let (shortest, rule, index) = queue.pop() {
            guard ruleLength[rule] == unreachable else { continue }
            ruleLength[rule] = shortest
            choice[rule] = index
            for (user, alternative) in users[rule] {
                length[user][alternative] = min(length[user][alternative] + shortest, unreachable)
                unsettled[user][alternative] -= 1
                if unsettled[user][alternative] == 0 && ruleLength[user] == unreachable && length[user][alternative] < unreachable {
                    queue.push((length[user][alternative], user, alternative))
                }
            }
        }
        // Every alternative ends with `.end`, so one backward pass gives each position's suffix.
        var suffix = [Int](repeating: unreachable, count: elements.count)
        for position in elements.indices.reversed() {
            switch elements[position] {
            case .end: suffix[position] = 0
            case .never: suffix[position] = unreachable
            case .characters: suffix[position] = min(characterLength[position] + suffix[position + 1], unreachable)
            case .rule(let rule): suffix[position] = min(ruleLength[rule] + suffix[position + 1], unreachable)
            }
        }
        return (suffix, choice, characters)
    }

    /// A character of the class for a shortest text: a readable one where the class allows it.
    private static func cheapest(in ranges: CharacterRanges) -> UInt32? {
        if !ranges.negated {
            return ranges.ranges.first { $0.lower <= $0.upper }?.lower
        }
        for candidate in [UInt32(UInt8(ascii: "a")), UInt32(UInt8(ascii: " ")), UInt32(UInt8(ascii: "0"))]
        where ranges.contains(candidate) {
            return candidate
        }
        // The first code point from U+0020 that no listed range (nor the surrogates) covers, in
        // one sweep of the ranges sorted: a class may list a million of them.
        let covered = (ranges.ranges.filter { $0.lower <= $0.upper } + [CharacterRanges.Range(lower: 0xD800, upper: 0xDFFF)])
            .sorted { $0.lower < $1.lower }
        var codePoint: UInt32 = 0x20
        for range in covered {
            if range.lower > codePoint { break }
            codePoint = max(codePoint, range.upper.addingReportingOverflow(1).partialValue)
            if range.upper == .max { return nil }
        }
        return codePoint <= 0x10FFFF ? codePoint : nil
    }
}

/// Builds ``CompiledGrammar``'s flat elements from parsed rules.
private struct Flattener {
    var rules: [[[GrammarTerm]]]
    var elements: [CompiledGrammar.Element] = []
    var alternatives: [[Int]] = []

    init(rules: [[[GrammarTerm]]]) {
        self.rules = rules
        alternatives = Array(repeating: [], count: rules.count)
    }

    mutating func flattenAll() {
        for rule in rules.indices { define(rule, rules[rule]) }
    }

    /// A new rule with these alternatives; its number.
    private mutating func newRule(_ ruleAlternatives: [[GrammarTerm]]) -> Int {
        alternatives.append([])
        let rule = alternatives.count - 1
        define(rule, ruleAlternatives)
        return rule
    }

    private mutating func define(_ rule: Int, _ ruleAlternatives: [[GrammarTerm]]) {
        // Helper rules are made before the alternatives are laid out, so each alternative's
        // elements stay contiguous.
        let flat = ruleAlternatives.map { sequence in sequence.flatMap { lower($0) } }
        var starts: [Int] = []
        for sequence in flat {
            starts.append(elements.count)
            elements.append(contentsOf: sequence)
            elements.append(.end)
        }
        alternatives[rule] = starts
    }

    /// A term as elements (helper rules made for groups and repetitions).
    private mutating func lower(_ term: GrammarTerm) -> [CompiledGrammar.Element] {
        switch term {
        case .literal(let codePoints):
            return codePoints.map { .characters(CharacterRanges(negated: false, ranges: [.init(lower: $0, upper: $0)])) }
        case .characters(let ranges):
            return [.characters(ranges)]
        case .any:
            return [.characters(CharacterRanges(negated: true, ranges: []))]
        case .token:
            return [.never]
        case .rule(let rule):
            return [.rule(rule)]
        case .group(let groupAlternatives):
            return [.rule(newRule(groupAlternatives))]
        case .repeated(let inner, let minimum, let maximum):
            let once = newRule([[inner]])
            var result = [CompiledGrammar.Element](repeating: .rule(once), count: minimum)
            if let maximum {
                // x{0,k}: O(k) ::= x O(k-1) | ε, O(1) ::= x | ε.
                var optional: Int? = nil
                for _ in 0..<max(maximum - minimum, 0) {
                    optional = newRule([[.rule(once)] + (optional.map { [.rule($0)] } ?? []), []])
                }
                if let optional { result.append(.rule(optional)) }
            } else {
                // x*: S ::= x S | ε.
                alternatives.append([])
                let star = alternatives.count - 1
                define(star, [[.rule(once), .rule(star)], []])
                result.append(.rule(star))
            }
            return result
        }
    }
}

/// Decoding one UTF-8 sequence as its bytes arrive.
private enum UTF8Sequence {
    case incomplete
    case invalid
    case scalar(UInt32)

    /// The sequence's length from its first byte (1 for a byte that cannot start one).
    static func length(first: UInt8) -> Int {
        switch first {
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 1
        }
    }

    /// What `bytes`, the start of one sequence, are so far.
    static func decode(_ bytes: [UInt8]) -> UTF8Sequence {
        let length = length(first: bytes[0])
        if bytes.count < length {
            return bytes.dropFirst().allSatisfy { (0x80...0xBF).contains($0) } ? .incomplete : .invalid
        }
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        guard case .valid(let encoded) = parser.parseScalar(from: &iterator), encoded.count == bytes.count else { return .invalid }
        return .scalar(Unicode.UTF8.decode(encoded).value)
    }
}

/// A binary min-heap of (length, rule, alternative), ordered by length, then rule, then
/// alternative, so that ties settle the same way every time.
private struct ShortestQueue {
    private var items: [(Int, Int, Int)] = []

    mutating func push(_ item: (Int, Int, Int)) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (Int, Int, Int)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count && items[left] < items[smallest] { smallest = left }
            if right < items.count && items[right] < items[smallest] { smallest = right }
            guard smallest != parent else { return top }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
