/// A rewind a hook asked for that the engine refuses; reported as the hook's failure, so the
/// hook is disabled (or the reply ends, under `--strict`) and the reply so far is kept.
enum RewindMisuse: Error, CustomStringConvertible {
    /// Before the first byte of the reply.
    case beforeTheStart
    /// After the end of the reply.
    case afterTheEnd(offset: Int, length: Int)
    /// Further back than the hook's declared window.
    case pastTheWindow(bytes: Int, window: Int)
    /// Into text already shown (after another plugin's rewinds moved the window).
    case alreadyShown
    /// More rewinds in one reply than allowed.
    case tooMany(Int)

    var description: String {
        switch self {
        case .beforeTheStart: "tried to rewind past the start of the reply"
        case .afterTheEnd(let offset, let length): "tried to rewind to byte \(offset + 1) of a reply of \(length) bytes"
        case .pastTheWindow(let bytes, let window):
            "tried to take back \(bytes) bytes, more than its rewind window of \(window); declare a larger window"
        case .alreadyShown:
            "tried to take back text that was already shown (rewinds in a row walked back past the text held back)"
        case .tooMany(let limit):
            "asked for more than \(limit) rewinds in one reply, so the reply ends here (the max-rewinds parameter sets the limit)"
        }
    }
}
