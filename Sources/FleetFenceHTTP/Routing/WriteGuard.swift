import Foundation
import HTTPTypes
import Hummingbird

/// Who may write (docs/http.md "The HTTP interface"): with `http.token_file`, whoever presents its token
/// as a bearer token; without one, anyone, but only while the interface listens on a loopback
/// address, so that a default install never takes writes from the network. A middleware of the
/// writing routes (``APIRoutes``): a refused write is answered before its body is read.
struct WriteGuard: RouterMiddleware {
    typealias Context = APIRequestContext


    let tokenFile: String?
    let listensOnLoopback: Bool

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try check(request)
        return try await next(request, context)
    }

    func check(_ request: Request) throws(HTTPProblem) {
        guard let tokenFile else {
            if listensOnLoopback { return }
            throw HTTPProblem(
                status: .forbidden,
                reason: "writes need http.token_file when the interface listens beyond loopback")
        }
        // Read at each write, so that a rotated token takes effect without a restart.
        guard let token = Self.token(in: tokenFile) else {
            throw HTTPProblem(status: .internalServerError, reason: "the token file \(tokenFile) cannot be read")
        }
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = "Bearer"
        // The scheme's name is case-insensitive (RFC 9110, 11.1): `bearer` is `Bearer`.
        guard let given = request.headers[.authorization], given.utf8.count > 7,
            given.prefix(7).lowercased() == "bearer ",
            Self.constantTimeEqual(Array(given.utf8.dropFirst(7)), Array(token.utf8))
        else {
            throw HTTPProblem(status: .unauthorized, reason: "a write needs Authorization: Bearer <token>", headers: headers)
        }
    }

    static func token(in file: String) -> String? {
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    /// Whether `host` (of `http.listen`) is a loopback address.
    static func isLoopback(host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    /// Compares without an early exit, so that the time taken says nothing about the token.
    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
