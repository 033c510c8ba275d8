import Testing
import TideCore
@testable import TideServe

/// Which free sequence a request is lent (no model needed).
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
}
