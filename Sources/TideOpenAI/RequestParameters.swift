import TideCore

extension ChatCompletionRequest {
    /// Sets the request's sampling fields from `parameters`, as a client sends them (the
    /// repetition penalty only when it is on: some servers reject the field).
    public mutating func setParameters(_ parameters: GenerationParameters) {
        temperature = parameters.temperature
        topP = parameters.topP
        topK = parameters.topK
        minP = parameters.minP
        repeatPenalty = parameters.repeatPenalty == 1 ? nil : parameters.repeatPenalty
        maxTokens = parameters.maxTokens
        seed = parameters.seed.map(Int.init)
        stop = parameters.stop.isEmpty ? nil : parameters.stop
    }

    /// The parameters the request asks for, over `defaults` (a server's), validated. An invalid
    /// value is a ``RequestFieldError`` naming the field in the wire's spelling (`top_p`).
    public func parameters(over defaults: GenerationParameters) throws(RequestFieldError) -> GenerationParameters {
        var parameters = defaults
        if let temperature { parameters.temperature = temperature }
        if let topP { parameters.topP = topP }
        if let topK { parameters.topK = topK }
        if let minP { parameters.minP = minP }
        if let repeatPenalty { parameters.repeatPenalty = repeatPenalty }
        if let maxTokens { parameters.maxTokens = maxTokens }
        if let stop { parameters.stop = stop }
        if let seed {
            guard let value = UInt32(exactly: seed) else {
                throw RequestFieldError(field: "seed", message: "seed must be a whole number from 0 to \(UInt32.max), not \(seed)")
            }
            parameters.seed = value
        }
        do {
            try parameters.validate()
        } catch {
            // Tide's name (`top-p`) in the wire's spelling (`top_p`).
            let field = String(error.name.map { $0 == "-" ? "_" : $0 })
            throw RequestFieldError(field: field, message: "\(field) must be \(error.requirement), not \(error.value)")
        }
        return parameters
    }
}
