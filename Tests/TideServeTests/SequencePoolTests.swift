import Testing
import TideCore
import TideProvider
@testable import TideServe
import TideTestSupport

/// Which free sequences a request is lent, and when (no model needed).
@Suite struct SequencePoolTests {
    static let system = ChatMessage(.system, "You are a helpful assistant.")
    static let ada = [system, ChatMessage(.user, "My name is Ada."), ChatMessage(.assistant, "Hello, Ada!")]
    static let ocean = [system, ChatMessage(.user, "What is the largest ocean?"), ChatMessage(.assistant, "The Pacific.")]

    func choice(_ held: [[ChatMessage]], _ request: [ChatMessage]) -> Int {
        SequencePool.choice(among: held.map(SequencePool.key), for: request)
    }

    @Test func aContinuedConversationGetsTheSequenceHoldingIt() {
        let next = Self.ada + [ChatMessage(.user, "What is my name?")]
        #expect(choice([Self.ada, Self.ocean, []], next) == 0)
        #expect(choice([[], Self.ocean, Self.ada], next) == 2)
        // However long the new question: all that the sequence holds begins the request.
        let long = Self.ada + [ChatMessage(.user, String(repeating: "Tell me more about tides and the moon. ", count: 10))]
        #expect(choice([[], Self.ocean, Self.ada], long) == 2)
    }

    @Test func aNewConversationGetsTheLeastRecentlyUsedSequence() {
        // Sharing the system prompt alone is not continuing a conversation, however short the question.
        let fresh = [Self.system, ChatMessage(.user, "Name three colours.")]
        #expect(choice([Self.ocean, Self.ada], [Self.system, ChatMessage(.user, "Hi")]) == 0)
        #expect(choice([Self.ocean, Self.ada, []], fresh) == 0)
        #expect(choice([[], Self.ada], fresh) == 0)
    }

    @Test func theSameRequestAgainGetsItsSequenceTheLatestOfEquals() {
        let request = Array(Self.ada.prefix(2))
        #expect(choice([Self.ocean, Self.ada, Self.ocean], request) == 1)
        #expect(choice([Self.ada, Self.ocean, Self.ada], request) == 2)
    }

    @Test func theKeyKeepsRolesAndMessagesApart() {
        let split = [ChatMessage(.user, "ab"), ChatMessage(.user, "c")]
        let joined = [ChatMessage(.user, "a"), ChatMessage(.user, "bc")]
        #expect(SequencePool.key(split) != SequencePool.key(joined))
        #expect(SequencePool.key([ChatMessage(.user, "x")]) != SequencePool.key([ChatMessage(.assistant, "x")]))
        #expect(SequencePool.key([]).isEmpty)
    }

    /// A request for several choices gets all its sequences at once or waits, first come first
    /// served: a smaller request behind it waits too, and is served once the larger one has been.
    @Test func severalSequencesComeAllAtOnceInTheOrderAsked() async throws {
        let batch = try #require(try ScriptedModel.echo().makeBatch(ModelSetup(), sequences: 3, contextSize: nil))
        let pool = try SequencePool(batch: batch)
        let held = try await pool.acquire(2, for: Self.ada)
        #expect(held.count == 2 && held[0] !== held[1])
        let three = Task { try await pool.acquire(3, for: Self.ocean) }
        while await pool.waiting < 1 { await Task.yield() }
        let one = Task { try await pool.acquire(1, for: Self.ada) }
        while await pool.waiting < 2 { await Task.yield() }
        // One free sequence is not enough for the first in line, and the next waits behind it.
        await pool.release(held[0], holding: Self.ada)
        let (waiting, busy) = (await pool.waiting, await pool.busy)
        #expect(waiting == 2 && busy == 1)
        await pool.release(held[1], holding: Self.ada)
        let all = try await three.value
        let stillWaiting = await pool.waiting
        #expect(Set(all.map { ObjectIdentifier($0) }).count == 3 && stillWaiting == 1)
        for backend in all { await pool.release(backend, holding: []) }
        #expect(try await one.value.count == 1)
    }

    /// A request that leaves while it waits lets the smaller ones behind it be served.
    @Test func aWaiterThatLeavesLetsTheNextBeServed() async throws {
        let batch = try #require(try ScriptedModel.echo().makeBatch(ModelSetup(), sequences: 2, contextSize: nil))
        let pool = try SequencePool(batch: batch)
        let held = try await pool.acquire(1, for: Self.ada)
        let two = Task { try await pool.acquire(2, for: Self.ocean) }
        while await pool.waiting < 1 { await Task.yield() }
        let one = Task { try await pool.acquire(1, for: Self.ada) }
        while await pool.waiting < 2 { await Task.yield() }
        two.cancel()
        await #expect(throws: CancellationError.self) { try await two.value }
        #expect(try await one.value.count == 1)
        let busy = await pool.busy
        #expect(busy == 2)
        _ = held
    }
}
