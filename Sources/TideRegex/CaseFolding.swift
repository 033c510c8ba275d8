/// Simple (one scalar to one scalar) case folding, for `(?i)`.
enum CaseFolding {
    /// The scalar `scalar` folds to: the lowercase of its uppercase when both are single scalars
    /// (so `K`, `k` and the Kelvin sign all fold to `k`), else its lowercase when that is a single
    /// scalar, else itself.
    static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII {
            return ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
        }
        if let upper = upper(scalar), let lower = single(upper.properties.lowercaseMapping) { return lower }
        return single(scalar.properties.lowercaseMapping) ?? scalar
    }

    /// The uppercase of `scalar`, when it is a single scalar.
    static func upper(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        single(scalar.properties.uppercaseMapping)
    }

    private static func single(_ mapping: String) -> Unicode.Scalar? {
        let scalars = mapping.unicodeScalars
        return scalars.count == 1 ? scalars.first : nil
    }
}
