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
        parameters.maxTokens = 0
        #expect(throws: InvalidParameterError(name: "max-tokens", value: "0", requirement: "a whole number ≥ 1")) {
            try parameters.validate()
        }
        parameters = GenerationParameters()
        parameters.topK = -3
        #expect(throws: InvalidParameterError.self) { try parameters.validate() }
        parameters = GenerationParameters()
        parameters.stop = ["ok", ""]
        #expect(throws: InvalidParameterError.self) { try parameters.validate() }
    }
}
