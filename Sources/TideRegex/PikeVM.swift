/// Runs a ``RegexProgram`` over a text by simulating all its threads in step (a Pike VM, after
/// Thompson's NFA simulation): at each position every live thread is at a distinct instruction,
/// so the work is at most the text's length times the program's size, whatever the pattern.
///
/// Threads are kept in priority order (the order a backtracking matcher would try them), so the
/// reported match is the leftmost one and, among those starting there, the one a backtracking
/// matcher (Perl, PCRE, Swift `Regex`) would report: leftmost-first, not leftmost-longest.
struct PikeVM {
    let program: RegexProgram
    let text: [Unicode.Scalar]
    let budget: MatchBudget
    /// Return as soon as any match is found, not the preferred one (enough to say whether there is one).
    let anyMatch: Bool

    private var steps = 0
    private var nextCheck = 0
    /// The threads ``add(to:pc:slots:at:)`` has yet to follow, kept to reuse its storage.
    private var stack: [Thread] = []

    init(program: RegexProgram, text: [Unicode.Scalar], budget: MatchBudget, anyMatch: Bool) {
        self.program = program
        self.text = text
        self.budget = budget
        self.anyMatch = anyMatch
    }

    /// A thread: where it is in the program, and the positions it has recorded.
    private struct Thread {
        var pc: Int
        var slots: [Int]
    }

    /// The threads at one position, in priority order, with the instructions already reached.
    private struct ThreadList {
        var threads: [Thread] = []
        /// A sparse set of the instructions reached at this position: `dense[sparse[pc]] == pc`.
        var sparse: [Int]
        var dense: [Int] = []

        init(size: Int) { sparse = Array(repeating: 0, count: size) }

        /// Marks `pc` as reached; false if it already was.
        mutating func reach(_ pc: Int) -> Bool {
            let index = sparse[pc]
            if index < dense.count && dense[index] == pc { return false }
            sparse[pc] = dense.count
            dense.append(pc)
            return true
        }

        mutating func clear() {
            threads.removeAll(keepingCapacity: true)
            dense.removeAll(keepingCapacity: true)
        }
    }

    /// The slots of the match (-1 for a group that took no part), or nil when there is none.
    mutating func run() throws(MatchTooCostly) -> [Int]? {
        let size = program.instructions.count
        var current = ThreadList(size: size)
        var next = ThreadList(size: size)
        var matched: [Int]?
        let empty = Array(repeating: -1, count: program.slotCount)
        var position = 0
        while true {
            try checkBudget()
            if matched == nil { add(to: &current, pc: 0, slots: empty, at: position) }
            if current.threads.isEmpty && (matched != nil || position >= text.count) { break }
            let scalar = position < text.count ? text[position] : nil
            let folded = program.foldsCase ? scalar.map(CaseFolding.fold) : nil
            threads: for thread in current.threads {
                steps += 1
                let consumed: Bool
                switch program.instructions[thread.pc] {
                case .match:
                    matched = thread.slots
                    if anyMatch { return matched }
                    // Lower-priority threads could only give a less preferred match.
                    break threads
                case .scalar(let expected): consumed = scalar == expected
                case .foldedScalar(let expected): consumed = folded == expected
                case .any: consumed = scalar != nil
                case .anyButNewline: consumed = scalar != nil && scalar != "\n"
                case .characterClass(let characterClass): consumed = scalar.map(characterClass.contains) ?? false
                case .assertion, .split, .jump, .save: preconditionFailure("only consuming instructions are queued")
                }
                if consumed { add(to: &next, pc: thread.pc + 1, slots: thread.slots, at: position + 1) }
            }
            if position >= text.count { break }
            swap(&current, &next)
            next.clear()
            position += 1
        }
        return matched
    }

    /// Follows `pc` and every instruction reachable from it without consuming, in priority
    /// order, queueing the consuming ones (and `match`) on `list`.
    private mutating func add(to list: inout ThreadList, pc: Int, slots: [Int], at position: Int) {
        stack.append(Thread(pc: pc, slots: slots))
        while var thread = stack.popLast() {
            guard list.reach(thread.pc) else { continue }
            steps += 1
            switch program.instructions[thread.pc] {
            case .jump(let target):
                thread.pc = target
                stack.append(thread)
            case .split(let preferred, let other):
                stack.append(Thread(pc: other, slots: thread.slots))
                thread.pc = preferred
                stack.append(thread)
            case .save(let slot):
                thread.slots[slot] = position
                thread.pc += 1
                stack.append(thread)
            case .assertion(let assertion):
                if holds(assertion, at: position) {
                    thread.pc += 1
                    stack.append(thread)
                }
            case .scalar, .foldedScalar, .any, .anyButNewline, .characterClass, .match:
                list.threads.append(thread)
            }
        }
    }

    private func holds(_ assertion: Assertion, at position: Int) -> Bool {
        let before = position > 0 ? text[position - 1] : nil
        let after = position < text.count ? text[position] : nil
        switch assertion {
        case .startOfText: return position == 0
        case .endOfText: return after == nil
        case .endOfTextOrBeforeFinalNewline: return after == nil || (after == "\n" && position == text.count - 1)
        case .startOfLine: return before == nil || before == "\n"
        case .endOfLine: return after == nil || after == "\n"
        case .wordBoundary, .notWordBoundary:
            let boundary = (before.map(ScalarKind.isWord) ?? false) != (after.map(ScalarKind.isWord) ?? false)
            return boundary == (assertion == .wordBoundary)
        }
    }

    /// Throws when the budget is spent or the task cancelled (called at each text position): at
    /// the first position past the most steps, however few; looks at the clock only every few
    /// thousand steps.
    private mutating func checkBudget() throws(MatchTooCostly) {
        guard steps >= nextCheck else { return }
        nextCheck = steps + 4_096
        if let maximum = budget.maximumSteps {
            if steps > maximum { throw MatchTooCostly(reason: .steps, steps: steps, textLength: text.count) }
            if maximum < nextCheck - 1 { nextCheck = maximum + 1 }
        }
        if Task.isCancelled { throw MatchTooCostly(reason: .cancelled, steps: steps, textLength: text.count) }
        if let deadline = budget.deadline, ContinuousClock.now >= deadline {
            throw MatchTooCostly(reason: .deadline, steps: steps, textLength: text.count)
        }
    }
}
