/// A grammar flattened into nodes for the analyses llama.cpp's loader and the schema converter
/// need: which nodes can match the empty text, which can match some text at all, and left
/// recursion. Node `i < rules.count` is rule `i`; groups and repetitions get nodes of their own.
/// Every analysis is linear in the grammar's size, so no grammar can make them slow.
struct GrammarGraph {
    /// An element of a flattened alternative.
    private enum Element {
        /// Something that reads one character or token.
        case terminal
        /// A character class holding nothing: it never matches.
        case never
        /// Another node.
        case node(Int)
    }

    /// Each node's alternatives.
    private var alternatives: [[[Element]]] = []
    /// The rule each node belongs to (itself for a rule).
    private var owners: [Int] = []

    /// The graph of `grammar`.
    init(_ grammar: ParsedGrammar) {
        alternatives = Array(repeating: [], count: grammar.rules.count)
        owners = Array(grammar.rules.indices)
        for (rule, ruleAlternatives) in grammar.rules.enumerated() {
            alternatives[rule] = ruleAlternatives.map { sequence in sequence.map { flatten($0, owner: rule) } }
        }
    }

    private mutating func flatten(_ term: GrammarTerm, owner: Int) -> Element {
        switch term {
        case .characters(let ranges) where ranges.isEmpty: return .never
        case .literal, .characters, .any, .token: return .terminal
        case .rule(let rule): return .node(rule)
        case .group(let groupAlternatives):
            let node = addNode(owner: owner)
            alternatives[node] = groupAlternatives.map { sequence in sequence.map { flatten($0, owner: owner) } }
            return .node(node)
        case .repeated(let inner, let min, _):
            let node = addNode(owner: owner)
            let element = flatten(inner, owner: owner)
            alternatives[node] = min == 0 ? [[], [element]] : [[element]]
            return .node(node)
        }
    }

    private mutating func addNode(owner: Int) -> Int {
        alternatives.append([])
        owners.append(owner)
        return alternatives.count - 1
    }

    /// The nodes that can match some text made only of characters (no unbounded recursion,
    /// no impossible choice) when `terminalsCount`, or the empty text when not.
    private func satisfiable(terminalsCount: Bool) -> [Bool] {
        var result = Array(repeating: false, count: alternatives.count)
        // For each (node, alternative), the elements not yet known satisfiable.
        var pending: [[Int]] = alternatives.map { $0.map { _ in 0 } }
        var users: [[(node: Int, alternative: Int)]] = Array(repeating: [], count: alternatives.count)
        var work: [Int] = []
        for (node, nodeAlternatives) in alternatives.enumerated() {
            for (index, sequence) in nodeAlternatives.enumerated() {
                for element in sequence {
                    switch element {
                    case .terminal where !terminalsCount: pending[node][index] += 1
                    case .terminal: break
                    case .never: pending[node][index] += 1
                    case .node(let used):
                        pending[node][index] += 1
                        users[used].append((node, index))
                    }
                }
                if pending[node][index] == 0 && !result[node] {
                    result[node] = true
                    work.append(node)
                }
            }
        }
        while let done = work.popLast() {
            for (node, index) in users[done] where !result[node] {
                pending[node][index] -= 1
                if pending[node][index] == 0 {
                    result[node] = true
                    work.append(node)
                }
            }
        }
        return result
    }

    /// Whether each rule can match some finite text (of characters; a token never matches text).
    func productiveRules(count: Int) -> [Bool] {
        Array(satisfiable(terminalsCount: true).prefix(count))
    }

    /// What entering a rule costs llama.cpp before it reads a character: it makes one stack per
    /// way of reaching the next character or token, each as deep as the rules it went through,
    /// and checks every sampled token against every stack.
    struct Expansion {
        /// The rule whose expansion makes the most stacks, and how many (an upper bound: an empty
        /// alternative counts once more), saturating at the cap.
        var widest: (rule: Int, width: Int)
        /// The rule whose expansion nests deepest, and how deep: how many positions to come back
        /// to it stacks (a rule or group entered last in its alternative adds none, as llama.cpp
        /// drops a finished alternative before entering).
        var deepest: (rule: Int, depth: Int)
    }

    /// The widest and the deepest expansion of any rule. Needs a grammar without left recursion;
    /// linear, without recursion.
    func expansion(cap: Int) -> Expansion {
        let nullable = satisfiable(terminalsCount: false)
        let entered = alternatives.indices.map { firstNodes(of: $0, nullable: nullable) }
        // Nodes after all they enter (acyclic without left recursion).
        var order: [Int] = []
        walkDepthFirst(entered, finished: { order.append($0) }, cycle: { _, _ in false })
        var width = Array(repeating: 0, count: alternatives.count)
        var depth = Array(repeating: 0, count: alternatives.count)
        var result = Expansion(widest: (0, 0), deepest: (0, 0))
        for node in order {
            var total = 0
            for sequence in alternatives[node] {
                var ways = 0
                var reachesEnd = true
                for (index, element) in sequence.enumerated() {
                    guard case .node(let target) = element else {
                        ways += 1
                        reachesEnd = false
                        break
                    }
                    depth[node] = max(depth[node], depth[target] + (index == sequence.count - 1 ? 0 : 1))
                    ways = min(ways + width[target], cap)
                    if !nullable[target] {
                        reachesEnd = false
                        break
                    }
                }
                total = min(total + ways + (reachesEnd ? 1 : 0), cap)
            }
            width[node] = total
            if total > result.widest.width { result.widest = (owners[node], total) }
            if depth[node] > result.deepest.depth { result.deepest = (owners[node], depth[node]) }
        }
        return result
    }

    /// The nodes that `node`'s alternatives can enter before reading anything.
    private func firstNodes(of node: Int, nullable: [Bool]) -> [Int] {
        var targets: [Int] = []
        for sequence in alternatives[node] {
            for element in sequence {
                guard case .node(let target) = element else { break }
                targets.append(target)
                if !nullable[target] { break }
            }
        }
        return targets
    }

    /// A chain of rules that can reach its first rule again without reading anything, ending
    /// with that first rule again (`a → b → a`), or `nil` when the grammar has no left recursion.
    func leftRecursion() -> [Int]? {
        let nullable = satisfiable(terminalsCount: false)
        let edges = alternatives.indices.map { firstNodes(of: $0, nullable: nullable) }
        var found: [Int]?
        walkDepthFirst(edges, finished: { _ in }, cycle: { path, target in
            let cycle = path.drop { $0 != target }.map { owners[$0] }
            found = cycle.enumerated().compactMap { index, rule in
                index > 0 && cycle[index - 1] == rule ? nil : rule
            } + [owners[target]]
            return true
        })
        return found
    }
}
