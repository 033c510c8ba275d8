/// The session's hooks in order, with the policy for failures, the time and instructions spent
/// in them, and where their calls are traced.
///
/// Every call to a hook goes through here, so failures are handled in one place: under
/// ``HookErrorPolicy/disableHook`` a failing hook is reported once and skipped from then on.
final class HookChain {
    private(set) var hooks: [any ChatHook]
    private(set) var disabled: Set<ObjectIdentifier>
    let policy: HookErrorPolicy
    private(set) var duration: Duration = .zero
    private(set) var failures: [HookFailure] = []
    /// What each hook's calls cost at each point, in the order of their first calls.
    private(set) var costs: [HookCost] = []
    private var costIndex: [CostKey: Int] = [:]
    /// Where each call is recorded as it ends; `nil` for no trace.
    let trace: (any HookTrace)?

    private struct CostKey: Hashable {
        let hook: ObjectIdentifier
        let point: HookPoint
    }

    /// A chain of `hooks`; with a `trace`, or when `countingInstructions`, the hooks count the
    /// instructions of their calls exactly (``ChatHook/countInstructions(_:)``).
    init(hooks: [any ChatHook], disabled: Set<ObjectIdentifier>, policy: HookErrorPolicy, trace: (any HookTrace)? = nil,
         countingInstructions: Bool = false)
    {
        self.hooks = hooks
        self.disabled = disabled
        self.policy = policy
        self.trace = trace
        for hook in hooks { hook.countInstructions(countingInstructions || trace != nil) }
    }

    /// The enabled hooks that implement `point`, in order.
    func active(at point: HookPoint) -> [any ChatHook] {
        hooks.filter { $0.points.contains(point) && !disabled.contains(ObjectIdentifier($0)) }
    }

    /// Every hook that implements `point`, in order, with whether it is disabled: a policy point
    /// (``HookPoint/toolCall``, ``HookPoint/toolResult``) reads the disabled ones too, so that a
    /// policy that failed once keeps refusing, never lets later calls through unchecked.
    func implementing(_ point: HookPoint) -> [(hook: any ChatHook, disabled: Bool)] {
        hooks.filter { $0.points.contains(point) }.map { ($0, disabled.contains(ObjectIdentifier($0))) }
    }

    /// Whether any enabled hook implements `point`.
    func has(_ point: HookPoint) -> Bool { !active(at: point).isEmpty }

    /// Calls one hook through `body`, timing it and counting its instructions into ``costs``,
    /// and records the call in ``trace`` with what it was `given` and its `outcome`, in short
    /// (both built only when there is a trace). Returns `nil` when the hook failed and was
    /// disabled; rethrows the failure under ``HookErrorPolicy/failReply``.
    func call<Result>(_ hook: any ChatHook, at point: HookPoint, position: Int? = nil,
                      given: @autoclosure () -> String = "", outcome: (Result) -> String = { _ in "" },
                      _ body: () throws -> Result) throws(HookFailure) -> Result?
    {
        let givenText = trace == nil ? "" : given()
        let before = hook.instructionsSpent
        let start = ContinuousClock.now
        let result = Swift.Result { try body() }
        let spent = ContinuousClock.now - start
        duration += spent
        let instructions = before.flatMap { before in hook.instructionsSpent.map { $0 - before } }
        let key = CostKey(hook: ObjectIdentifier(hook), point: point)
        if let index = costIndex[key] {
            costs[index].add(instructions: instructions, duration: spent)
        } else {
            costIndex[key] = costs.count
            costs.append(HookCost(plugin: hook.name, hook: point, calls: 1, instructions: instructions, duration: spent))
        }
        if let trace {
            let decided = switch result {
            case .success(let value): outcome(value)
            case .failure(let error): "failed: " + ("\(error)".split(separator: "\n").first.map(String.init) ?? "")
            }
            trace.record(HookCall(plugin: hook.name, hook: point, position: position, given: givenText, outcome: decided,
                                  instructions: instructions, microseconds: spent.seconds * 1e6))
        }
        return try handled(result, of: hook, at: point)
    }

    /// Runs work done on a hook's behalf (the decoder taking a reply back for its rewind, reading
    /// its `rewind_window`): timed as the hook's, and its failure is the hook's, but it is not
    /// one of the calls that ``costs`` count and ``trace`` records.
    func charge<Result>(_ hook: any ChatHook, at point: HookPoint, _ body: () throws -> Result) throws(HookFailure) -> Result? {
        let start = ContinuousClock.now
        let result = Swift.Result { try body() }
        duration += ContinuousClock.now - start
        return try handled(result, of: hook, at: point)
    }

    /// Reports `error` as the failure of `hook` at `point` (its misuse of a rewind), as a call
    /// that threw it would be.
    func fail(_ hook: any ChatHook, at point: HookPoint, _ error: any Error) throws(HookFailure) {
        _ = try handled(Swift.Result<Void, any Error>.failure(error), of: hook, at: point)
    }

    /// The value of `result`, or `nil` after disabling the hook that failed; rethrows the
    /// failure under ``HookErrorPolicy/failReply``.
    private func handled<Result>(_ result: Swift.Result<Result, any Error>, of hook: any ChatHook, at point: HookPoint)
        throws(HookFailure) -> Result?
    {
        switch result {
        case .success(let value): return value
        case .failure(let error):
            let failure = HookFailure(hookName: hook.name, point: point, message: "\(error)")
            if policy == .failReply { throw failure }
            disabled.insert(ObjectIdentifier(hook))
            failures.append(failure)
            return nil
        }
    }

    /// Takes the failures recorded since the last call, to report them.
    func takeFailures() -> [HookFailure] {
        defer { failures.removeAll() }
        return failures
    }
}
