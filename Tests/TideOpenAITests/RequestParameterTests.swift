import Testing
import TideCore
import TideOpenAI

/// The one pair of functions that maps Tide's parameters to a request (the remote backend) and
/// back (`tide serve`).
@Suite struct RequestParameterTests {
    @Test func parametersRoundTripThroughARequest() throws {
        var parameters = GenerationParameters()
        parameters.temperature = 0.3
        parameters.topK = 7
        parameters.topP = 0.8
        parameters.minP = 0.1
        parameters.repeatPenalty = 1.2
        parameters.maxTokens = 99
        parameters.seed = 42
        parameters.stop = ["END"]
        var request = ChatCompletionRequest(model: "m", messages: [], stream: true)
        request.setParameters(parameters)
        #expect(try request.parameters(over: GenerationParameters()) == parameters)
        request.setParameters(GenerationParameters())
        #expect(request.repeatPenalty == nil && request.stop == nil, "fields at their neutral value are not sent")
    }

    @Test func invalidValuesNameTheWireField() {
        var request = ChatCompletionRequest(model: "m", messages: [], stream: false)
        request.topP = 2
        #expect(throws: RequestFieldError(field: "top_p", message: "top_p must be a number in (0, 1], not 2.0")) {
            try request.parameters(over: GenerationParameters())
        }
        request.topP = nil
        request.seed = -1
        #expect(throws: RequestFieldError(field: "seed", message: "seed must be a whole number from 0 to 4294967295, not -1")) {
            try request.parameters(over: GenerationParameters())
        }
    }
}
