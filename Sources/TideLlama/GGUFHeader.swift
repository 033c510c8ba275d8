import Foundation
import TideFiles

/// The fixed start of a GGUF file, checked before llama.cpp sees the file so that common
/// mistakes (a wrong path, an HTML error page, a half-downloaded file) get a precise message.
struct GGUFHeader {
    /// Format version (2 or 3 today).
    let version: UInt32
    /// Number of tensors the file declares.
    let tensorCount: UInt64
    /// Number of metadata entries the file declares.
    let metadataCount: UInt64

    /// Reads and checks the header of the file at `path`.
    init(path: String) throws(LlamaError) {
        switch InputFile.kind(of: path) {
        case .regular: break
        case .missing, .directory: throw .modelNotFound(path: path)
        case .inaccessible: throw .invalidModel(path: path, reason: "permission denied on the way to it (check the folders' permissions)")
        case let kind:
            throw .invalidModel(path: path, reason: "it is \(kind.phrase), not a regular file; llama.cpp maps a model from a regular file")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .invalidModel(path: path, reason: "the file cannot be read (check its permissions)")
        }
        defer { try? handle.close() }
        let bytes = [UInt8]((try? handle.read(upToCount: 24)) ?? Data())
        guard bytes.count >= 4, bytes.starts(with: Array("GGUF".utf8)) else {
            let start = bytes.prefix(4).map { (32...126).contains($0) ? String(UnicodeScalar($0)) : "." }.joined()
            throw .invalidModel(path: path, reason: bytes.isEmpty ? "the file is empty"
                : "it does not start with the GGUF magic (found \(start.debugDescription))")
        }
        guard bytes.count == 24 else { throw .invalidModel(path: path, reason: "the file is truncated inside its header") }
        func little<T: FixedWidthInteger>(_ offset: Int, as _: T.Type) -> T {
            bytes[offset..<(offset + MemoryLayout<T>.size)].reversed().reduce(0) { $0 << 8 | T($1) }
        }
        version = little(4, as: UInt32.self)
        tensorCount = little(8, as: UInt64.self)
        metadataCount = little(16, as: UInt64.self)
        guard (2...3).contains(version) else {
            throw .invalidModel(path: path, reason: "unsupported GGUF version \(version) (llama.cpp reads versions 2 and 3)")
        }
        guard tensorCount > 0 else { throw .invalidModel(path: path, reason: "it declares no tensors") }
    }
}
