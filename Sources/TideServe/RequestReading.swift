import Foundation
import Hummingbird
import TideFormat
import TideOpenAI

extension APIError {
    /// An error met reading a request (its body, or the values in it), as the client's: an
    /// ``APIError`` as it is, a field's error about its field, anything else a 400 whose message
    /// follows `context` ("The body is not a completion request: …") where there is one.
    static func request(_ error: any Error, context: String?) -> APIError {
        let prefix = context.map { "\($0): " } ?? ""
        return switch error {
        case let error as APIError: error
        case let error as RequestFieldError: .invalid(error.message, param: error.field, code: error.code)
        case let error as DecodingError: .invalid(prefix + error.plainDescription)
        default: .invalid(prefix + "\(error)")
        }
    }
}

extension ChatServer {
    /// The request's body (``readBody(of:)``) decoded as `Body`, with its JSON document in key
    /// order; `what` names the request in errors ("a completion request").
    func readRequest<Body: Decodable>(_ type: Body.Type, from request: inout Request,
                                      what: String) async throws(APIError) -> (body: Body, json: JSONValue) {
        let (data, json) = try await readBody(of: &request)
        return (try decode(Body.self, from: data, what: what), json)
    }

    /// `data` decoded as `Body`; `what` names the request in errors.
    func decode<Body: Decodable>(_ type: Body.Type, from data: Data, what: String) throws(APIError) -> Body {
        do {
            return try JSONDecoder().decode(Body.self, from: data)
        } catch {
            throw .request(error, context: "The body is not \(what)")
        }
    }
}
