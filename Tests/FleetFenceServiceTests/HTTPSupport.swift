import FleetFenceHTTP
import FleetFenceService
import FleetFenceTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ServiceHarness {
    /// Runs `body` with requests routed in-process (HummingbirdTesting's `.router`) to the HTTP
    /// interface over the running service: the same routes, middleware and endpoints as over a
    /// socket, with `options.routedListen` and the `http.token_file` setting for the write rule, and
    /// nothing bound.
    func routedHTTP<Result>(_ body: @Sendable (RoutedHTTPClient) async throws -> Result) async throws -> Result {
        guard case let .inProcess(running)? = service else { throw TestError("routed HTTP needs the service in-process") }
        let interface = try HTTPInterface(api: running.service, listen: options.routedListen, logger: running.logs.logger())
        return try await interface.application.test(.router) { client in
            try await body(RoutedHTTPClient(client: client))
        }
    }
}

/// ``withService(_:isolation:_:)`` with requests routed in-process to the HTTP interface.
func withRoutedHTTP<Result>(
    _ options: HarnessOptions = HarnessOptions(),
    _ body: @Sendable (ServiceHarness, RoutedHTTPClient) async throws -> Result
) async throws -> Result {
    var options = options
    options.http = .routed
    return try await withService(options) { h in
        try await h.routedHTTP { http in try await body(h, http) }
    }
}

// MARK: Requests and replies

/// A reply as a test reads it, however the request went.
struct HTTPReply: CustomStringConvertible {
    let status: Int
    /// Lower-case names.
    let headers: [String: String]
    let body: Data

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONObject? { JSONObject([UInt8](body)) }
    /// The reason of an `{"error": reason}` body.
    var error: String? { json?.string("error") }
    var description: String { "\(status) \(text)" }
}

/// What a test asks of the HTTP interface: a method, a path with its query, a body, headers.
protocol HTTPRequesting: Sendable {
    func request(_ method: String, _ path: String, body: Data?, headers: [String: String]) async throws -> HTTPReply
}

extension HTTPRequesting {
    func request(_ method: String, _ path: String, body: Data? = nil) async throws -> HTTPReply {
        try await request(method, path, body: body, headers: [:])
    }

    func request(_ method: String, _ path: String, headers: [String: String]) async throws -> HTTPReply {
        try await request(method, path, body: nil, headers: headers)
    }

    func get(_ path: String) async throws -> HTTPReply { try await request("GET", path) }

    func put(_ path: String, _ body: String, headers: [String: String] = [:]) async throws -> HTTPReply {
        try await request("PUT", path, body: Data(body.utf8), headers: headers)
    }

    func delete(_ path: String, headers: [String: String] = [:]) async throws -> HTTPReply {
        try await request("DELETE", path, body: nil, headers: headers)
    }
}

/// Requests routed in-process by HummingbirdTesting.
struct RoutedHTTPClient: HTTPRequesting {
    let client: any TestClientProtocol

    func request(_ method: String, _ path: String, body: Data?, headers: [String: String]) async throws -> HTTPReply {
        var fields = HTTPFields()
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        let response = try await client.executeRequest(
            uri: path, method: HTTPRequest.Method(method)!, headers: fields, body: body.map { ByteBuffer(bytes: $0) })
        var replyHeaders: [String: String] = [:]
        for field in response.headers {
            let name = field.name.canonicalName
            replyHeaders[name] = replyHeaders[name].map { $0 + ", " + field.value } ?? field.value
        }
        return HTTPReply(status: response.status.code, headers: replyHeaders, body: Data(response.body.readableBytesView))
    }
}

/// Plain HTTP over a socket to the interface's port: what a user's curl does.
struct HTTPClient: HTTPRequesting {
    let base: String

    func request(_ method: String, _ path: String, body: Data?, headers: [String: String]) async throws -> HTTPReply {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)".lowercased()] = "\(value)" }
        return HTTPReply(status: http.statusCode, headers: fields, body: data)
    }
}

/// A Server-Sent Events reader over a plain socket: it sees every byte as it arrives, and can
/// stop reading to play a slow client.
final class SSEReader: @unchecked Sendable {
    private let fd: Int32
    private let events = Mutex<[(name: String, data: String)]>([])
    private let buffer = Mutex<[UInt8]>([])
    private var thread: Thread?
    let status = Mutex<Int?>(nil)

    /// Connects to `127.0.0.1:port` and asks for `path`; `reading: false` never reads a byte.
    init(port: Int, path: String = "/api/stream", reading: Bool = true) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        // A small receive buffer, so that a client that does not read falls behind quickly.
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestError("cannot connect to 127.0.0.1:\(port)") }
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        guard reading else { return }
        let thread = Thread { [self] in readLoop() }
        self.thread = thread
        thread.start()
    }

    deinit { close() }

    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    var received: [(name: String, data: String)] { events.withLock { $0 } }
    private let everything = Mutex<[UInt8]>([])
    /// Every byte received, for a failure's message.
    var raw: String { String(decoding: everything.withLock { $0 }, as: UTF8.self) }

    /// Whether the server closed the connection.
    private let closedFlag = Atomic(false)
    var closedByServer: Bool { closedFlag.load(ordering: .acquiring) }

    private func readLoop() {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 {
                closedFlag.store(true, ordering: .releasing)
                return
            }
            buffer.withLock { $0 += chunk[0..<count] }
            everything.withLock { $0 += chunk[0..<count] }
            parse()
        }
    }

    private func parse() {
        buffer.withLock { bytes in
            while let end = bytes.firstRange(of: Array("\n\n".utf8)) {
                let block = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
                bytes.removeSubrange(..<end.upperBound)
                if block.hasPrefix("HTTP/1.1 ") {
                    status.withLock { $0 = Int(block.dropFirst(9).prefix(3)) }
                    // Headers end with \r\n\r\n; the first block holds the head and may hold more.
                    if let bodyStart = block.range(of: "\r\n\r\n") {
                        handle(String(block[bodyStart.upperBound...]))
                    }
                    continue
                }
                handle(block)
            }
        }
    }

    /// One event block; chunked transfer encoding puts size lines between them, which are skipped.
    private func handle(_ block: String) {
        var name: String?
        var data: String?
        // "\r\n" is one Character in Swift: split on any line break.
        for line in block.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
        }
        if let name, let data { events.withLock { $0.append((name, data)) } }
    }
}

struct TestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `eventually` for a condition that has to wait itself (an HTTP request).
func eventuallyAsync(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return await condition()
}
