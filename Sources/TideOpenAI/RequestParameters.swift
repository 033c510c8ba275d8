import TideCore

extension ChatCompletionRequest {
    /// Sets the request's parameter fields from `parameters`, as a client sends them: OpenAI's own
    /// always, the others only when they are not Tide's default (so that a server that does not
    /// know a field never sees it unless it is asked for), and none that Tide acts on itself
    /// (``TideCore/ParameterDeclaration/RequestUse``).
    public mutating func setParameters(_ parameters: GenerationParameters) {
        let defaults = GenerationParameters()
        self.parameters = ParameterSetting.all(of: parameters).filter { setting in
            guard setting.value != .null else { return false }
            switch setting.declaration.request {
            case .sent: return true
            case .sentWhenChanged: return setting.value != setting.declaration.value(in: defaults)
            case .local, .ownFields: return false
            }
        }
    }

    /// The parameters the request asks for, over `defaults` (a server's), validated. An invalid
    /// value is a ``RequestFieldError`` naming the field in the wire's spelling (`top_p`).
    public func parameters(over defaults: GenerationParameters) throws(RequestFieldError) -> GenerationParameters {
        var parameters = defaults
        for setting in self.parameters { setting.apply(to: &parameters) }
        do {
            try parameters.validate()
        } catch {
            throw RequestFieldError(field: error.field, message: "\(error.field) \(error.rule)")
        }
        return parameters
    }
}
