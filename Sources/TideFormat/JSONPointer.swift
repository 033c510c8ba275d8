/// RFC 6901 JSON pointers: building them and reading the `#…` fragments of `$ref`.
enum JSONPointer {
    /// `pointer` extended by one key or index, with `~` and `/` escaped.
    static func appending(_ token: String, to pointer: String) -> String {
        pointer + "/" + token.unicodeScalars.map { $0 == "~" ? "~0" : $0 == "/" ? "~1" : String($0) }.joined()
    }

    /// `pointer` extended by an array index.
    static func appending(_ index: Int, to pointer: String) -> String {
        pointer + "/" + String(index)
    }
}
