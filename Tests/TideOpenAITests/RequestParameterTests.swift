import Foundation
import Testing
import TideCore
import TideOpenAI
import TideTestSupport

/// The one pair of functions that maps Tide's parameters to a request (the remote backend) and
/// back (`tide serve`), both taken from the parameters' declarations.
@Suite struct RequestParameterTests {
    static func request(_ body: String) throws -> ChatCompletionRequest {
        try JSONDecoder().decode(ChatCompletionRequest.self, from: Data(body.utf8))
    }

    @Test func parametersRoundTripThroughARequest() throws {
        // Every parameter a client sends: those Tide acts on itself stay at their default.
        var parameters = GenerationParameters.everyOneChanged
        for declaration in GenerationParameters.declarations where [.local, .ownFields].contains(declaration.request) {
            try declaration.set(declaration.value(in: GenerationParameters()), in: &parameters)
        }
        var request = ChatCompletionRequest(model: "m", messages: [], stream: true)
        request.setParameters(parameters)
        let sent = try Self.request(String(decoding: try JSONEncoder().encode(request), as: UTF8.self))
        #expect(try sent.parameters(over: GenerationParameters()) == parameters)
        request.setParameters(GenerationParameters())
        let fields = Set(request.parameters.map(\.declaration.field))
        #expect(fields == ["temperature", "top_k", "top_p", "min_p", "max_tokens"], "fields at their default are not sent: \(fields)")
    }

    @Test func llamaServerAndOpenAIFieldNamesAreRead() throws {
        let request = try Self.request("""
            {"model": "m", "messages": [], "n_predict": 12, "dry_multiplier": 0.8, "dry_sequence_breakers": ["\\n", "."],
             "xtc_probability": 0.3, "xtc_threshold": 0.2, "typical_p": 0.5, "top_n_sigma": 2, "mirostat": 2, "mirostat_tau": 4,
             "mirostat_eta": 0.2, "presence_penalty": 1, "frequency_penalty": 0.5, "logit_bias": {"15": 5, "Paris": false},
             "seed": -1, "stop": "END"}
            """)
        let parameters = try request.parameters(over: GenerationParameters())
        #expect(parameters.maxTokens == 12 && parameters.dryMultiplier == 0.8 && parameters.drySequenceBreakers == ["\n", "."])
        #expect(parameters.xtcProbability == 0.3 && parameters.xtcThreshold == 0.2 && parameters.typicalP == 0.5)
        #expect(parameters.topNSigma == 2 && parameters.mirostat == 2 && parameters.mirostatTau == 4 && parameters.mirostatEta == 0.2)
        #expect(parameters.presencePenalty == 1 && parameters.frequencyPenalty == 0.5 && parameters.seed == nil && parameters.stop == ["END"])
        #expect(Set(parameters.logitBias) == [LogitBias(.token(15), 5), LogitBias(.text("Paris"), -.infinity)])
    }

    @Test func invalidValuesNameTheWireField() {
        #expect(throws: RequestFieldError(field: "top_p", message: "top_p must be a number in (0, 1], not 2")) {
            try Self.request(#"{"model": "m", "messages": [], "top_p": 2}"#)
        }
        #expect(throws: RequestFieldError(field: "seed", message: "seed must be a whole number from 0 to 4294967294, or random, not -2")) {
            try Self.request(#"{"model": "m", "messages": [], "seed": -2}"#)
        }
        #expect(throws: RequestFieldError(field: "presence_penalty", message: "presence_penalty must be a number from -2 to 2, not 3")) {
            try Self.request(#"{"model": "m", "messages": [], "presence_penalty": 3}"#)
        }
        #expect(throws: RequestFieldError(field: "max_completion_tokens",
                                          message: "max_completion_tokens must be a whole number from 0 to 2147483647, not -1")) {
            try Self.request(#"{"model": "m", "messages": [], "max_completion_tokens": -1}"#)
        }
        #expect(throws: RequestFieldError.self) { try Self.request(#"{"model": "m", "messages": [], "logit_bias": {"15": 101}}"#) }
        #expect(throws: RequestFieldError.self) { try Self.request(#"{"model": "m", "messages": [], "mirostat": 3}"#) }
        #expect(throws: RequestFieldError.self) { try Self.request(#"{"model": "m", "messages": [], "dry_sequence_breakers": []}"#) }
    }
}
