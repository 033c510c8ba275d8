import Testing
@testable import TideCore

@Suite struct GenerationParametersTests {
    @Test func defaultsFollowTheReferenceApp() throws {
        let parameters = GenerationParameters()
        #expect(parameters.temperature == 0.6)
        #expect(parameters.maxTokens == 1024)
        try parameters.validate()
    }

    @Test(arguments: [("temperature", -0.1), ("top-p", 1.5), ("top-p", 0), ("min-p", -1),
                      ("repeat-penalty", 0), ("temperature", .nan)] as [(String, Double)])
    func outOfRangeValuesAreNamed(name: String, value: Double) {
        var parameters = GenerationParameters()
        switch name {
        case "temperature": parameters.temperature = value
        case "top-p": parameters.topP = value
        case "min-p": parameters.minP = value
        default: parameters.repeatPenalty = value
        }
        #expect(throws: InvalidParameterError.self) { try parameters.validate() }
        do { try parameters.validate() } catch { #expect(error.name == name) }
    }

    @Test func countsAndStopsAreChecked() {
        var parameters = GenerationParameters()
        parameters.maxTokens = -1
        #expect(throws: InvalidParameterError(name: "max-tokens", value: "-1", requirement: "a whole number from 0 to 2147483647")) {
            try parameters.validate()
        }
        parameters = GenerationParameters()
        parameters.topK = -3
        #expect(throws: InvalidParameterError.self) { try parameters.validate() }
        parameters = GenerationParameters()
        parameters.stop = ["ok", ""]
        #expect(throws: InvalidParameterError.self) { try parameters.validate() }
    }

    /// Every value that passes converts to llama.cpp's 32-bit integers and floats without trapping.
    @Test(arguments: [("top-k", 2_147_483_648.0), ("max-tokens", 2_147_483_648.0), ("repeat-last-n", 1_048_577.0),
                      ("temperature", 1e300), ("repeat-penalty", 1e39), ("repeat-penalty", .infinity)]
          as [(String, Double)])
    func valuesTooLargeForLlamaCppAreRefused(name: String, value: Double) {
        var parameters = GenerationParameters()
        switch name {
        case "top-k": parameters.topK = Int(value)
        case "max-tokens": parameters.maxTokens = Int(value)
        case "repeat-last-n": parameters.repeatLastN = Int(value)
        case "temperature": parameters.temperature = value
        default: parameters.repeatPenalty = value
        }
        do {
            try parameters.validate()
            Issue.record("\(name) = \(value) was accepted")
        } catch {
            #expect(error.name == name)
        }
    }

    @Test func theLargestAcceptedValuesPass() throws {
        var parameters = GenerationParameters()
        parameters.topK = Int(Int32.max)
        parameters.maxTokens = Int(Int32.max)
        parameters.repeatLastN = GenerationParameters.maximumRepeatLastN
        try parameters.validate()
    }
}
