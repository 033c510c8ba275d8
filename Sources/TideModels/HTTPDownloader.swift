import AsyncHTTPClient
import Foundation
import NIOCore
import TideFiles

/// Downloads a URL into a file, resuming a partial one with an HTTP range request.
struct HTTPDownloader {
    let client: HTTPClient

    /// Downloads `url` into `partial`, continuing after the bytes it already holds.
    func download(_ url: URL, into partial: URL, progress: @Sendable (FetchProgress) -> Void) async throws {
        let existing = ModelStore.fileSize(partial) ?? 0
        var request = HTTPClientRequest(url: url.absoluteString)
        if existing > 0 { request.headers.add(name: "Range", value: "bytes=\(existing)-") }
        let response = try await client.execute(request, timeout: .hours(24))
        var offset: Int64
        switch response.status.code {
        case 206 where response.headers.first(name: "Content-Range")?.hasPrefix("bytes \(existing)-") == true:
            offset = existing
        case 200, 206:
            offset = 0
        case 416 where existing > 0:
            return  // nothing left to send: the partial file is whole, and the checksum will say so
        default:
            var body = try await response.body.collect(upTo: 4096)
            let text = body.readString(length: body.readableBytes) ?? ""
            throw ModelFetchError.httpStatus(Int(response.status.code), url: url.absoluteString,
                                             body: String(text.prefix(300)))
        }
        if !FileManager.default.fileExists(atPath: partial.path) {
            _ = FileManager.default.createFile(atPath: partial.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: partial)
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(offset))
        try handle.seekToEnd()
        let total = response.headers.first(name: "Content-Length").flatMap(Int64.init).map { $0 + offset }
        if let total { try ModelPuller.requireSpace(total - offset, at: partial) }
        progress(FetchProgress(received: offset, total: total))
        for try await chunk in response.body {
            do {
                try handle.write(contentsOf: Data(chunk.readableBytesView))
            } catch where FileSystemFailure.isOutOfSpace(error) {
                throw ModelFetchError.noSpace(folder: partial.deletingLastPathComponent().path,
                                              needed: total.map { $0 - offset }, available: FileSystemFailure.availableBytes(at: partial))
            } catch {
                throw ModelFetchError.cannotWrite(path: partial.path, reason: FileSystemFailure.reason(error))
            }
            offset += Int64(chunk.readableBytes)
            progress(FetchProgress(received: offset, total: total))
        }
        if let total, offset != total { throw ModelFetchError.incomplete(received: offset, expected: total) }
    }
}
