/// The session's hooks in order, with the policy for failures and the time spent in them.
///
/// Every call to a hook goes through here, so failures are handled in one place: under
/// ``HookErrorPolicy/disableHook`` a failing hook is reported once and skipped from then on.
final class HookChain {
    private(set) var hooks: [any ChatHook]
    private(set) var disabled: Set<ObjectIdentifier>
    let policy: HookErrorPolicy
    private(set) var duration: Duration = .zero
    private(set) var failures: [HookFailure] = []

    init(hooks: [any ChatHook], disabled: Set<ObjectIdentifier>, policy: HookErrorPolicy) {
        self.hooks = hooks
        self.disabled = disabled
        self.policy = policy
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

    /// Calls `body` for one hook, timing it. Returns `nil` when the hook failed and was disabled;
    /// rethrows the failure under ``HookErrorPolicy/failReply``.
    func call<Result>(_ hook: any ChatHook, at point: HookPoint, _ body: () throws -> Result)
        throws(HookFailure) -> Result?
    {
        let start = ContinuousClock.now
        defer { duration += ContinuousClock.now - start }
        do {
            return try body()
        } catch {
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
