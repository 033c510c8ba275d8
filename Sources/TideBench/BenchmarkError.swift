/// A benchmark that could not take its measurement.
public struct BenchmarkError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
