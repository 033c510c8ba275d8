import Testing
@testable import TideCore

@Suite struct StopStringMatcherTests {
    @Test func holdsBackAPossibleStartAndStopsWithoutShowingIt() {
        var matcher = StopStringMatcher(["</end>"])
        #expect(matcher.append("Hello <") == .init(released: "Hello ", stop: nil))
        #expect(matcher.heldText == "<")
        #expect(matcher.append("/en") == .init(released: "", stop: nil))
        // What followed the stop is kept apart (a tool call's marker opens it), never released.
        #expect(matcher.append("d> trailing") == .init(released: "", stop: "</end>", following: " trailing"))
    }

    @Test func releasesAPrefixThatTurnsOutNotToBeAStop() {
        var matcher = StopStringMatcher(["STOP"])
        #expect(matcher.append("ST").released == "")
        #expect(matcher.append("ATE") == .init(released: "STATE", stop: nil))
    }

    @Test func flushReleasesWhatIsHeldAtTheEnd() {
        var matcher = StopStringMatcher(["Paris!!!"])
        #expect(matcher.append("It is Paris").released == "It is ")
        #expect(matcher.flush() == "Paris")
        #expect(matcher.heldText == "")
    }

    @Test func theEarliestOfSeveralStopsWins() {
        var matcher = StopStringMatcher(["world", "lo w"])
        #expect(matcher.append("hello world") == .init(released: "hel", stop: "lo w", following: "orld"))
    }

    @Test func aStopInsideOneChunkKeepsTheTextBeforeIt() {
        var matcher = StopStringMatcher(["\n\n"])
        #expect(matcher.append("one\n\ntwo") == .init(released: "one", stop: "\n\n", following: "two"))
    }

    @Test func multiByteStopStrings() {
        var matcher = StopStringMatcher(["☕☕"])
        #expect(matcher.append("tea ☕").released == "tea ")
        #expect(matcher.append(" coffee").released == "☕ coffee")
        #expect(matcher.append("☕☕").stop == "☕☕")
    }

    @Test func noStopsPassesEverything() {
        var matcher = StopStringMatcher([])
        #expect(matcher.append("anything <") == .init(released: "anything <", stop: nil))
    }
}
