import Hummingbird
import NIOCore

/// A request's body, at most 1 MiB (docs/http.md "The HTTP interface"): a longer one is refused with 413
/// as soon as it is known to be, from its `Content-Length` before it is read.
enum RequestBody {
    static var maxBytes: Int { 1 << 20 }

    static func read(_ request: Request) async throws(HTTPProblem) -> [UInt8] {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBytes {
            throw HTTPProblem(status: .contentTooLarge, reason: "the body has \(length) bytes, at most \(maxBytes) are accepted")
        }
        do {
            var buffer = try await request.body.collect(upTo: maxBytes)
            return buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch is NIOTooManyBytesError {
            throw HTTPProblem(status: .contentTooLarge, reason: "the body is larger than \(maxBytes) bytes")
        } catch {
            // A body cut short (the client closed before its `Content-Length`) is not one too large.
            throw HTTPProblem(status: .badRequest, reason: "the body could not be read whole: \(error)")
        }
    }
}
