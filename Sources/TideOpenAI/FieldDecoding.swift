extension KeyedDecodingContainer {
    /// The whole number at `key`, `nil` when it is absent or null. JSON has one kind of number, so
    /// `1e2` is read as 100; a fraction (`1.5`) or a number too large for a 64-bit integer
    /// (`1e20`) is a ``RequestFieldError`` naming the field.
    func decodeWholeNumberIfPresent(forKey key: Key) throws -> Int? {
        do {
            return try decodeIfPresent(Int.self, forKey: key)
        } catch {
            // Not an integer as written: a number of another form, or not a number at all.
            guard let number = try? decodeIfPresent(Double.self, forKey: key) else { throw error }
            if let whole = Int(exactly: number) { return whole }
            let requirement = number.rounded() == number ? "a whole number from \(Int.min) to \(Int.max)" : "a whole number"
            throw RequestFieldError(field: key.stringValue, message: "\(key.stringValue) must be \(requirement), not \(number)")
        }
    }

    /// The string at `key`, `nil` if it is a value of another type (for fields that take one of
    /// several types). A malformed string (a lone UTF-16 surrogate such as `"\ud800"`) is an error
    /// at this field, not one of the whole body.
    func decodeUnlessOtherType(_ type: String.Type, forKey key: Key) throws -> String? {
        do {
            return try decode(type, forKey: key)
        } catch DecodingError.typeMismatch {
            return nil
        } catch let error as DecodingError {
            throw error
        } catch {
            // The parser's own error (its type is not public): the string itself is malformed.
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [key],
                                                    debugDescription: "not a valid string: check its \\u escapes (a UTF-16 surrogate "
                                                        + "such as \\ud800 must come in a pair)"))
        }
    }
}
