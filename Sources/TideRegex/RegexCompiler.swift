/// Compiles a ``RegexNode`` tree into a program for the ``PikeVM``.
///
/// Counted repetition is expanded (`a{3}` becomes `aaa`), so the program's size, not only the
/// pattern's length, bounds the matching cost; it is capped at ``maximumInstructions``.
public enum RegexCompiler {
    /// The most instructions a program may have. Matching costs at most the text's length times
    /// this, so `x{1000}` is accepted and `(abcde){1000}` (5,000 instructions and more) is refused.
    public static let maximumInstructions = 5_000

    /// How many instructions `node` compiles to (what ``RegexParser`` checks against the limit).
    public static func instructionCount(of node: RegexNode) -> Int {
        switch node {
        case .empty: return 0
        case .literal, .dot, .characterClass, .assertion: return 1
        case .group(let body, let capture): return instructionCount(of: body) + (capture == nil ? 0 : 2)
        case .concatenation(let items): return items.reduce(0) { $0 + instructionCount(of: $1) }
        case .alternation(let branches): return branches.reduce(2 * (branches.count - 1)) { $0 + instructionCount(of: $1) }
        case .repetition(let repetition):
            let size = instructionCount(of: repetition.node)
            guard let max = repetition.max else { return repetition.min == 0 ? size + 2 : repetition.min * size + 1 }
            return repetition.min * size + (max - repetition.min) * (size + 1)
        }
    }

    /// The program for a parsed pattern: it records the match in slots 0 and 1.
    static func compile(_ pattern: ParsedPattern) -> RegexProgram {
        var builder = Builder()
        builder.emit(.save(0))
        builder.compile(pattern.root)
        builder.emit(.save(1))
        builder.emit(.match)
        return RegexProgram(instructions: builder.instructions, slotCount: 2 * (pattern.captures.count + 1),
                            foldsCase: builder.foldsCase)
    }

    private struct Builder {
        var instructions: [Instruction] = []
        var foldsCase = false

        var next: Int { instructions.count }

        mutating func emit(_ instruction: Instruction) { instructions.append(instruction) }

        /// Emits a placeholder to patch once its targets are known.
        mutating func placeholder() -> Int {
            emit(.match)
            return next - 1
        }

        mutating func compile(_ node: RegexNode) {
            switch node {
            case .empty: break
            case .literal(let scalar, let ignoringCase):
                let folded = CaseFolding.fold(scalar)
                if ignoringCase && (folded != scalar || CaseFolding.upper(scalar).map { $0 != scalar } == true) {
                    foldsCase = true
                    emit(.foldedScalar(folded))
                } else {
                    emit(.scalar(scalar))
                }
            case .dot(let matchesNewline): emit(matchesNewline ? .any : .anyButNewline)
            case .characterClass(let characterClass): emit(.characterClass(characterClass))
            case .assertion(let assertion): emit(.assertion(assertion))
            case .group(let body, let capture):
                if let capture { emit(.save(2 * capture.index)) }
                compile(body)
                if let capture { emit(.save(2 * capture.index + 1)) }
            case .concatenation(let items):
                for item in items { compile(item) }
            case .alternation(let branches):
                var jumps: [Int] = []
                for branch in branches.dropLast() {
                    let split = placeholder()
                    compile(branch)
                    jumps.append(placeholder())
                    instructions[split] = .split(split + 1, next)
                }
                compile(branches.last!)
                for jump in jumps { instructions[jump] = .jump(next) }
            case .repetition(let repetition): compile(repetition)
            }
        }

        mutating func compile(_ repetition: Repetition) {
            let node = repetition.node
            for _ in 0..<max(repetition.min - (repetition.max == nil ? 1 : 0), 0) { compile(node) }
            guard let max = repetition.max else {
                if repetition.min == 0 {
                    // L: split(body, out); body; jump L
                    let split = placeholder()
                    compile(node)
                    emit(.jump(split))
                    instructions[split] = branch(continuing: split + 1, leaving: next, greedy: repetition.greedy)
                } else {
                    // The last required copy loops: L: body; split(L, out)
                    let start = next
                    compile(node)
                    emit(branch(continuing: start, leaving: next + 1, greedy: repetition.greedy))
                }
                return
            }
            // Optional copies, each inside the previous: split(body, end); body; split(body, end); body …
            var splits: [Int] = []
            for _ in repetition.min..<max {
                splits.append(placeholder())
                compile(node)
            }
            for split in splits {
                instructions[split] = branch(continuing: split + 1, leaving: next, greedy: repetition.greedy)
            }
        }

        /// A split that prefers repeating when greedy, leaving when lazy.
        private func branch(continuing: Int, leaving: Int, greedy: Bool) -> Instruction {
            greedy ? .split(continuing, leaving) : .split(leaving, continuing)
        }
    }
}
