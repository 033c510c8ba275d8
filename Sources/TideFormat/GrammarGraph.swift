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

    /// A chain of rules that can reach its first rule again without reading anything, ending
    /// with that first rule again (`a → b → a`), or `nil` when the grammar has no left recursion.
    func leftRecursion() -> [Int]? {
        let nullable = satisfiable(terminalsCount: false)
        let edges: [[Int]] = alternatives.map { nodeAlternatives in
            var targets: [Int] = []
            for sequence in nodeAlternatives {
                for element in sequence {
                    guard case .node(let target) = element else { break }
                    targets.append(target)
                    if !nullable[target] { break }
                }
            }
            return targets
        }
        // Iterative depth-first search: 0 unvisited, 1 on the path, 2 done.
        var state = Array(repeating: 0, count: alternatives.count)
        for start in alternatives.indices where state[start] == 0 {
            var path: [(node: Int, next: Int)] = [(start, 0)]
            state[start] = 1
            while let (node, next) = path.last {
                guard next < edges[node].count else {
                    state[node] = 2
                    path.removeLast()
                    continue
                }
                path[path.count - 1].next += 1
                let target = edges[node][next]
                if state[target] == 1 {
                    let cycle = path.drop { $0.node != target }.map { owners[$0.node] }
                    return cycle.enumerated().compactMap { index, rule in
                        index > 0 && cycle[index - 1] == rule ? nil : rule
                    } + [owners[target]]
                }
                if state[target] == 0 {
                    state[target] = 1
                    path.append((target, 0))
                }
            }
        }
        return nil
    }
}
