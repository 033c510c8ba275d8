/// A command that cannot do what it was asked, for a reason that is not a usage mistake: the
/// message says why and what to do, with no usage text after it (exit status 1).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
