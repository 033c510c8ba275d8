/// Why fetching a model failed. A partial download is kept, so the next pull resumes it.
public enum ModelFetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with an error status.
    case httpStatus(Int, url: String, body: String)
    /// The connection ended before the whole file arrived.
    case incomplete(received: Int64, expected: Int64)
    /// The file arrived but its SHA-256 is not the expected one; it was deleted.
    case checksumMismatch(expected: String, actual: String)
    /// A helper program (pip, unzip) failed.
    case toolFailed(command: String, status: Int32, output: String)
    /// The URL has no file name to store it under.
    case noFileName(String)

    public var description: String {
        switch self {
        case .httpStatus(let status, let url, let body):
            "the server answered HTTP \(status) for \(url)" + (body.isEmpty ? "" : ": \(body)")
        case .incomplete(let received, let expected):
            "the download stopped at \(received) of \(expected) bytes; run the pull again to resume"
        case .checksumMismatch(let expected, let actual):
            "the file's SHA-256 is \(actual), not the expected \(expected); it was deleted"
        case .toolFailed(let command, let status, let output):
            "`\(command)` failed with status \(status)" + (output.isEmpty ? "" : ": \(output)")
        case .noFileName(let url):
            "cannot tell a file name from \(url)"
        }
    }
}

/// How much of a model has arrived.
public struct FetchProgress: Sendable, Hashable {
    /// Bytes received, including those of an earlier partial download.
    public var received: Int64
    /// The whole size, when the server said.
    public var total: Int64?
}
