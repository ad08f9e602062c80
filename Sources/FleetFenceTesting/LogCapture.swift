import Foundation
import Logging
import Synchronization

/// The log lines of a service run in-process, one text a line as the command would print them
/// (level, message, metadata), so that a test reads them as it would read the process's log.
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public var text: String { lines.withLock { $0.joined(separator: "\n") } }

    /// A logger that writes here at `level`.
    public func logger(label: String = "fleetfence", level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ line: String) {
        lines.withLock { $0.append(line) }
        if ProcessInfo.processInfo.environment["FLEETFENCE_TEST_SERVICE_LOG"] != nil {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
            let fields = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            capture.append("\(event.level) \(event.message)" + (fields.isEmpty ? "" : " " + fields))
        }
    }
}
