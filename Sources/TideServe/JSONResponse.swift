import Foundation
import Hummingbird

extension Response {
    /// `value` encoded as a JSON response (slashes unescaped).
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}
