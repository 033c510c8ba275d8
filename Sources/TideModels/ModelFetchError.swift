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
    /// The model's folder has too little free space; the partial download is kept.
    case noSpace(folder: String, needed: Int64?, available: Int64?)
    /// The model's folder (or a file in it) cannot be written.
    case cannotWrite(path: String, reason: String)
    /// The download's server cannot be reached (no network, a name that does not resolve, a
    /// refused connection); what arrived is kept.
    case unreachable(host: String, reason: String)
    /// A model made by a script of the repository's (`scripts/setup.sh` runs it), not fetched.
    case madeBySetup(model: String, script: String)

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
        case .noSpace(let folder, let needed, let available):
            "no space left in \(folder): " + (needed.map { "the model needs \(Self.megabytes($0))" } ?? "the disk filled up")
                + (available.map { ", \(Self.megabytes($0)) are free" } ?? "")
                + "; free some space (or set XDG_CACHE_HOME to a larger disk) and pull again: the part already downloaded is kept"
        case .madeBySetup(let model, let script):
            "\(model) is converted to GGUF by Tide's \(script), which needs Python packages: run `make setup` (scripts/setup.sh) "
                + "in Tide's repository, which fetches and converts it into the model store"
        case .cannotWrite(let path, let reason):
            "cannot write \(path): \(reason); set XDG_CACHE_HOME to a writable folder, or give the model as a path to a .gguf file"
        case .unreachable(let host, let reason):
            "cannot reach \(host) (\(reason)); check the network and pull again (a partial download resumes), "
                + "or give the model as a path to a .gguf file you have (--model /path/to/model.gguf)"
        }
    }
}

extension ModelFetchError {
    /// Bytes in whole megabytes ("98 MB"), as download sizes are usually given.
    static func megabytes(_ bytes: Int64) -> String { "\((bytes + 999_999) / 1_000_000) MB" }
}

/// How much of a model has arrived.
public struct FetchProgress: Sendable, Hashable {
    /// Bytes received, including those of an earlier partial download.
    public var received: Int64
    /// The whole size, when the server said.
    public var total: Int64?
}
