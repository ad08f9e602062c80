import FleetFenceCodecs
import HTTPTypes
import Hummingbird

/// A request the interface refuses, with its status and reason: every error is
/// `{"error": reason}` (docs/http.md "The HTTP interface"). Thrown by a route or a middleware, the
/// router answers with ``response``.
struct HTTPProblem: HTTPResponseError {
    var status: HTTPResponse.Status
    var reason: String
    var headers: HTTPFields = [:]

    static func badRequest(_ reason: String) -> HTTPProblem { HTTPProblem(status: .badRequest, reason: reason) }
    static func notFound(_ reason: String) -> HTTPProblem { HTTPProblem(status: .notFound, reason: reason) }

    static func methodNotAllowed(_ method: HTTPRequest.Method, allowed: [HTTPRequest.Method]) -> HTTPProblem {
        var headers = HTTPFields()
        headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
        return HTTPProblem(
            status: .methodNotAllowed,
            reason: "\(method.rawValue) is not allowed here; allowed: \(allowed.map(\.rawValue).joined(separator: ", "))",
            headers: headers)
    }

    func response(from request: Request, context: some RequestContext) -> Response { response }

    var response: Response {
        var json = JSONWriter(capacity: 64 + reason.utf8.count)
        json.beginObject()
        json.key("error")
        json.string(reason)
        json.endObject()
        var response = Response.json(json.bytes, status: status)
        for field in headers { response.headers.append(field) }
        return response
    }
}

extension Response {
    /// A JSON body, already encoded.
    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func bytes(_ bytes: [UInt8], contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
