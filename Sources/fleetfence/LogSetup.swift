import Foundation
import Logging

/// One place that sets up swift-log for the programs here.
enum LogSetup {
    /// Logs to standard error at `level` (a swift-log level name); `label` names the program.
    static func bootstrap(level: String, label: String = "fleetfence") -> Logger {
        let parsed = Logger.Level(rawValue: level.lowercased()) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = parsed
            return handler
        }
        var logger = Logger(label: label)
        logger.logLevel = parsed
        return logger
    }
}
