import AsyncHTTPClient
import Foundation
import NIOCore

/// Downloads a URL into a file, resuming a partial one with an HTTP range request.
struct HTTPDownloader {
    let client: HTTPClient

    /// Downloads `url` into `partial`, continuing after the bytes it already holds.
    func download(_ url: URL, into partial: URL, progress: @Sendable (FetchProgress) -> Void) async throws {
        let existing = fileSize(partial)
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
        progress(FetchProgress(received: offset, total: total))
        for try await chunk in response.body {
            try handle.write(contentsOf: Data(chunk.readableBytesView))
            offset += Int64(chunk.readableBytes)
            progress(FetchProgress(received: offset, total: total))
        }
        if let total, offset != total { throw ModelFetchError.incomplete(received: offset, expected: total) }
    }

    private func fileSize(_ url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }
}
