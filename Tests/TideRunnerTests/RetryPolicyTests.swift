import Testing
import TideCore
import TideRunner

/// The waits before retries: doubling from half a second with jitter, capped, never sooner than
/// a server's Retry-After, and none once the retries are spent or the server asks too much.
@Suite struct RetryPolicyTests {
    @Test func waitsDoubleWithinTheirJitterUpToTheCap() {
        let policy = RetryPolicy(retries: 10)
        for attempt in 1...10 {
            let backoff = min(Duration.milliseconds(500) * Double(1 << (attempt - 1)), .seconds(30))
            #expect(policy.wait(before: attempt, after: Transience(), jitter: { 0 }) == backoff * 0.5)
            #expect(policy.wait(before: attempt, after: Transience(), jitter: { 1 }) == backoff)
            let drawn = policy.wait(before: attempt, after: Transience())!
            #expect(drawn >= backoff * 0.5 && drawn <= backoff, "attempt \(attempt): \(drawn)")
        }
    }

    @Test func retryAfterIsHonouredAndRetriesRunOut() {
        let policy = RetryPolicy(retries: 2)
        #expect(policy.wait(before: 1, after: Transience(retryAfter: .seconds(7)), jitter: { 1 }) == .seconds(7))
        #expect(policy.wait(before: 2, after: Transience(retryAfter: .zero), jitter: { 1 }) == .seconds(1))
        #expect(policy.wait(before: 3, after: Transience()) == nil, "two retries, then none")
        #expect(policy.wait(before: 1, after: Transience(retryAfter: .seconds(121))) == nil, "a server that asks too long is given up on")
        #expect(RetryPolicy(retries: 0).wait(before: 1, after: Transience()) == nil)
    }
}
