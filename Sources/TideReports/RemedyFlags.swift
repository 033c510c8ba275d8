import TideCore

extension Remedy {
    /// The flag that applies this remedy, as errors on the command line name it.
    public var flag: String {
        switch self {
        case .contextSize: "--ctx-size"
        case .dropOldestTurns: "--context-overflow drop-oldest"
        case .chatTemplate: "--template"
        case .remoteTimeout: "--remote-timeout"
        }
    }

    /// `error`'s description, followed by the flags of its remedies.
    public static func withFlags(_ error: any Error) -> String {
        describe(error, naming: \.flag)
    }
}
