import Foundation
import Logging

/// A logger for tests: quiet unless `FLEETFENCE_TEST_LOG` names a level (e.g. `debug`).
public func testLogger(_ label: String = "test") -> Logger {
    var logger = Logger(label: label)
    let level = ProcessInfo.processInfo.environment["FLEETFENCE_TEST_LOG"].flatMap(Logger.Level.init(rawValue:))
    logger.logLevel = level ?? .critical
    return logger
}
