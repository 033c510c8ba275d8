import TideCore

extension ToolCallFormat {
    /// The reader that offers tools and reads calls in this format.
    public var reader: any ToolCallReader {
        switch self {
        case .hermes: HermesToolCalls()
        case .llama3: LlamaToolCalls()
        case .phi4Mini: Phi4MiniToolCalls()
        }
    }
}
