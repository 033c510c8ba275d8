/// A depth-first walk of a graph given as each node's successors, from every node in turn,
/// without recursion (a grammar or a schema may chain a hundred thousand rules): `finished`
/// gets each node once every node it leads to is finished (a post-order); `cycle` gets the path
/// walked and the node on it met again, and stops the walk by returning `true`.
func walkDepthFirst(_ edges: [[Int]], finished: (Int) -> Void, cycle: ([Int], Int) -> Bool) {
    // 0 unvisited, 1 on the path, 2 done.
    var state = Array(repeating: 0, count: edges.count)
    for start in edges.indices where state[start] == 0 {
        var path: [(node: Int, next: Int)] = [(start, 0)]
        state[start] = 1
        while let (node, next) = path.last {
            guard next < edges[node].count else {
                state[node] = 2
                finished(node)
                path.removeLast()
                continue
            }
            path[path.count - 1].next += 1
            let target = edges[node][next]
            if state[target] == 1, cycle(path.map(\.node), target) { return }
            if state[target] == 0 {
                state[target] = 1
                path.append((target, 0))
            }
        }
    }
}
