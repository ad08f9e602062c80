import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The Chrome DevTools protocol over chromium's `--remote-debugging-pipe`: each command a JSON
/// message ended by a NUL byte written to the browser's descriptor 3, each answer and event one
/// read from its descriptor 4. No port and no WebSocket: nothing else on the machine can reach
/// the browser, and no client library is needed.
///
/// A thread of its own reads the answers, so that a call waits without holding one of Swift
/// concurrency's few threads; it also ends calls past their deadline and, once the browser has
/// ended, every call still waiting.
final class DevToolsPipe: Sendable {
    private struct Waiting {
        var method: String
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<Data, any Error>
    }

    private struct State {
        var nextID = 1
        var waiting: [Int: Waiting] = [:]
        /// Why calls fail from now on (the browser ended, or the pipe was closed).
        var broken: String?
        /// Exceptions and console errors of the page, for a failing test to show.
        var problems: [String] = []
    }

    private let commands: Int32
    private let answers: Int32
    private let state = Mutex(State())
    private let writing = Mutex(())
    private let stopped = Atomic(false)
    /// Set by the reader as it returns: only then are the descriptors closed.
    private let readerDone = Atomic(false)
    private let isAlive: @Sendable () -> Bool

    /// `commands` and `answers`: our ends of the browser's descriptors 3 and 4.
    init(commands: Int32, answers: Int32, isAlive: @escaping @Sendable () -> Bool) {
        self.commands = commands
        self.answers = answers
        self.isAlive = isAlive
        let thread = Thread { [self] in
            readAnswers()
            readerDone.store(true, ordering: .releasing)
        }
        thread.name = "devtools-pipe"
        thread.start()
    }

    /// What the page threw or logged as an error so far.
    var problems: [String] { state.withLock { $0.problems } }

    /// Sends `method` and returns the `result` of its answer, as JSON; throws the protocol's error.
    func call(
        _ method: String, _ parameters: [String: any Sendable] = [:], session: String? = nil,
        timeout: Duration = .seconds(30)
    ) async throws -> Data {
        var message: [String: Any] = ["method": method, "params": parameters as [String: Any]]
        if let session { message["sessionId"] = session }
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        message["id"] = id
        let bytes = Array(try JSONSerialization.data(withJSONObject: message)) + [0]
        return try await withCheckedThrowingContinuation { continuation in
            let broken: String? = state.withLock { state in
                if let broken = state.broken { return broken }
                state.waiting[id] = Waiting(method: method, deadline: .now + timeout, continuation: continuation)
                return nil
            }
            if let broken {
                continuation.resume(throwing: TestSupportError("DevTools \(method): \(broken)"))
                return
            }
            if !send(bytes) {
                fail(id, "cannot write to the browser: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Stops the reader; calls still waiting fail. Idempotent.
    func close() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        failAll("the pipe was closed")
        // The reader polls every 100 ms; the descriptors are closed once it is done with them.
        while !readerDone.load(ordering: .acquiring) { usleep(5_000) }
        closeDescriptor(commands)
        closeDescriptor(answers)
    }

    private func send(_ bytes: [UInt8]) -> Bool {
        writing.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    private func readAnswers() {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var lastCheck = ContinuousClock.now
        while !stopped.load(ordering: .acquiring) {
            var descriptor = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 100) > 0 {
                let count = chunk.withUnsafeMutableBytes { read(answers, $0.baseAddress, $0.count) }
                if count > 0 {
                    buffer += chunk[0..<count]
                    while let end = buffer.firstIndex(of: 0) {
                        deliver(Data(buffer[..<end]))
                        buffer.removeSubrange(...end)
                    }
                }
            }
            let now = ContinuousClock.now
            if now - lastCheck >= .milliseconds(100) {
                lastCheck = now
                expire(now)
                if !isAlive() {
                    failAll("the browser ended")
                    return
                }
            }
        }
    }

    private func deliver(_ message: Data) {
        guard let object = (try? JSONSerialization.jsonObject(with: message)) as? [String: Any] else { return }
        if let id = object["id"] as? Int {
            guard let waiting = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { return }
            if let error = object["error"] as? [String: Any] {
                let reason = error["message"] as? String ?? "\(error)"
                waiting.continuation.resume(throwing: TestSupportError("DevTools \(waiting.method): \(reason)"))
            } else {
                let result = object["result"] ?? [String: Any]()
                let data = (try? JSONSerialization.data(withJSONObject: result)) ?? Data("{}".utf8)
                waiting.continuation.resume(returning: data)
            }
            return
        }
        if let problem = Self.problem(in: object) {
            state.withLock { $0.problems.append(problem) }
        }
    }

    /// An exception thrown in the page, a console error, or a crashed page, as one line.
    private static func problem(in event: [String: Any]) -> String? {
        let parameters = event["params"] as? [String: Any] ?? [:]
        switch event["method"] as? String {
        case "Runtime.exceptionThrown":
            let details = parameters["exceptionDetails"] as? [String: Any] ?? [:]
            let exception = details["exception"] as? [String: Any]
            return "exception: \(exception?["description"] as? String ?? details["text"] as? String ?? "\(details)")"
        case "Runtime.consoleAPICalled" where parameters["type"] as? String == "error":
            let arguments = parameters["args"] as? [[String: Any]] ?? []
            return "console.error: " + arguments.map { "\($0["value"] ?? $0["description"] ?? "")" }.joined(separator: " ")
        case "Inspector.targetCrashed":
            return "the page crashed"
        default:
            return nil
        }
    }

    private func expire(_ now: ContinuousClock.Instant) {
        let late = state.withLock { state in
            let ids = state.waiting.filter { $0.value.deadline <= now }.map(\.key)
            return ids.compactMap { state.waiting.removeValue(forKey: $0) }
        }
        for waiting in late {
            waiting.continuation.resume(throwing: TestSupportError("DevTools \(waiting.method): no answer in time"))
        }
    }

    private func fail(_ id: Int, _ reason: String) {
        guard let waiting = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { return }
        waiting.continuation.resume(throwing: TestSupportError("DevTools \(waiting.method): \(reason)"))
    }

    private func failAll(_ reason: String) {
        let all = state.withLock { state in
            if state.broken == nil { state.broken = reason }
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for waiting in all {
            waiting.continuation.resume(throwing: TestSupportError("DevTools \(waiting.method): \(reason)"))
        }
    }
}

/// `close(2)`, out of reach of the method of the same name.
private func closeDescriptor(_ descriptor: Int32) {
    close(descriptor)
}
