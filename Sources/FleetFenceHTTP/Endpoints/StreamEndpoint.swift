import FleetFenceService
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// `/api/stream`: Server-Sent Events of alerts, states, fences, as committed. A reader that falls
/// behind is dropped and its connection closed, even in the middle of a write to a socket it no
/// longer reads: the service never waits for it (docs/http.md "The HTTP interface").
struct StreamEndpoint: Sendable {
    let api: any FleetFenceAPI

    static let heartbeatInterval = Duration.seconds(15)

    static var headers: HTTPFields {
        var headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
        // Proxies such as nginx would otherwise buffer the stream.
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        return headers
    }

    /// HEAD: the stream's headers, no subscriber. A HEAD response's body is never run, so a
    /// stream opened for one never closed: 64 HEAD requests took every slot until a restart.
    func head() -> Response {
        Response(status: .ok, headers: Self.headers)
    }

    func open() throws(HTTPProblem) -> Response {
        guard let subscriber = api.readModel.feed.subscribe() else {
            throw HTTPProblem(
                status: .serviceUnavailable,
                reason: "too many streams open (at most \(LiveFeed.maxSubscribers)); try again later")
        }
        return Response(status: .ok, headers: Self.headers, body: ResponseBody { writer in
            defer { subscriber.close() }
            let box = WriterBox(writer)
            // A stop ends every stream (HTTPInterface): the server waits for open responses.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // The connection opens at once, before the first event.
                    try await box.write(ByteBuffer(string: ": fleetfence stream\n\n"))
                    while let events = await subscriber.next() {
                        var buffer = ByteBuffer()
                        buffer.reserveCapacity(events.reduce(0) { $0 + $1.frame.count })
                        for event in events { buffer.writeBytes(event.frame) }
                        try await box.write(buffer)
                    }
                }
                group.addTask {
                    await subscriber.waitUntilDropped()
                    throw CancellationError()
                }
                group.addTask {
                    // An idle stream whose client went away is noticed when a write fails, and
                    // gives its slot back; proxies keep a stream that speaks open.
                    while true {
                        try await Task.sleep(for: Self.heartbeatInterval)
                        subscriber.heartbeat()
                    }
                }
                _ = try await group.next()
                group.cancelAll()
            }
            writer = box.writer
            try await writer.finish(nil)
        })
    }
}

/// The response's writer, handed to the task that writes while another waits for a drop. Only
/// one task uses it at a time: the body's own task resumes after the writing task has ended.
private final class WriterBox: @unchecked Sendable {
    var writer: any ResponseBodyWriter

    init(_ writer: any ResponseBodyWriter) {
        self.writer = writer
    }

    func write(_ buffer: ByteBuffer) async throws {
        try await writer.write(buffer)
    }
}
