import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// A real HTTP server on a loopback port that records every webhook POST and answers as the test
/// says: 2xx, 5xx, 410, slowly. Stopped, its port refuses connections (a receiver that is down).
/// Webhook tests and the chaos runs (docs/webhooks.md "Webhooks") share it.
public final class WebhookReceiver: Sendable {
    public struct Received: Sendable {
        /// Header names lower-cased.
        public var headers: [String: String]
        public var body: [UInt8]
        public var path: String
        public var at = ContinuousClock.now
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public struct Answer: Sendable {
        public var status: Int
        public var delay: Duration = .zero
        public var headers: [String: String] = [:]
        /// Answers only once the requests received so far satisfy it (at most 10 s): an order
        /// made certain, not left to timing.
        public var holdUntil: (@Sendable ([Received]) -> Bool)? = nil
        /// A body of `bytes`, sent a byte at a time `apart` (a receiver that answers and then
        /// stalls); nil: no body.
        public var drip: (bytes: Int, apart: Duration)? = nil

        public init(
            status: Int, delay: Duration = .zero, headers: [String: String] = [:],
            holdUntil: (@Sendable ([Received]) -> Bool)? = nil, drip: (bytes: Int, apart: Duration)? = nil
        ) {
            self.status = status
            self.delay = delay
            self.headers = headers
            self.holdUntil = holdUntil
            self.drip = drip
        }
    }

    /// Given each request and how many came before it, the answer.
    public typealias Behaviour = @Sendable (Received, Int) -> Answer

    /// What the server's handler shares with the test.
    private final class Recorder: Sendable {
        let received = Mutex<[Received]>([])
        let behaviour: Mutex<Behaviour>
        init(_ behaviour: @escaping Behaviour) { self.behaviour = Mutex(behaviour) }
    }

    public let port: Int
    private let recorder: Recorder
    private let task: Task<Void, any Error>

    public var requests: [Received] { recorder.received.withLock { $0 } }
    public var url: String { "http://127.0.0.1:\(port)/hook" }

    /// Answers from now on with `behaviour`.
    public func answer(_ behaviour: @escaping Behaviour) { recorder.behaviour.withLock { $0 = behaviour } }

    private init(port: Int, recorder: Recorder, task: Task<Void, any Error>) {
        self.port = port
        self.recorder = recorder
        self.task = task
    }

    /// Starts on `port` (0: a free one) and returns once it listens.
    public static func start(port: Int = 0, _ behaviour: @escaping Behaviour = { _, _ in Answer(status: 204) }) async throws -> WebhookReceiver {
        let recorder = Recorder(behaviour)
        let router = Router()
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName.lowercased()] = field.value }
            let item = Received(headers: headers, body: Array(buffer.readableBytesView), path: request.uri.path)
            let count = recorder.received.withLock { list in
                list.append(item)
                return list.count - 1
            }
            let answer = recorder.behaviour.withLock { $0 }(item, count)
            if answer.delay > .zero { try? await Task.sleep(for: answer.delay) }
            if let holdUntil = answer.holdUntil {
                let deadline = ContinuousClock.now + .seconds(10)
                while !holdUntil(recorder.received.withLock { $0 }), ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(10))
                }
            }
            var fields = HTTPFields()
            for (name, value) in answer.headers {
                if let name = HTTPField.Name(name) { fields[name] = value }
            }
            guard let drip = answer.drip else { return Response(status: HTTPResponse.Status(code: answer.status), headers: fields) }
            let body = ResponseBody(contentLength: drip.bytes) { writer in
                for _ in 0..<drip.bytes {
                    try await writer.write(ByteBuffer(bytes: [UInt8(ascii: "x")]))
                    try await Task.sleep(for: drip.apart)
                }
                try await writer.finish(nil)
            }
            return Response(status: HTTPResponse.Status(code: answer.status), headers: fields, body: body)
        }
        router.post("hook", use: handler)
        let bound = Atomic(-1)
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in bound.store(channel.localAddress?.port ?? -1, ordering: .releasing) })
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        // Generous: the server starts on the cooperative pool (two threads on two cores), which
        // other tests' synchronous waits for their child processes can hold for seconds under
        // load; a fresh clone's run beside a release build once saw every receiver miss 10 s.
        let deadline = ContinuousClock.now + .seconds(60)
        while bound.load(ordering: .acquiring) < 0 {
            guard ContinuousClock.now < deadline else {
                task.cancel()
                throw TestSupportError("webhook receiver not listening within 60 s")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return WebhookReceiver(port: bound.load(ordering: .acquiring), recorder: recorder, task: task)
    }

    /// Stops listening; returns once it has.
    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    /// Waits until `count` requests came; returns them all.
    @discardableResult
    public func waitForRequests(_ count: Int, timeout: Duration = .seconds(30)) async -> [Received] {
        let deadline = ContinuousClock.now + timeout
        while requests.count < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return requests
    }
}
