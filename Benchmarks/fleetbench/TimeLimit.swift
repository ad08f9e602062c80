import Foundation

/// The run's outer bound: past it the process exits; the watchdogs of the broker and the service
/// see their pipe close and stop them.
enum TimeLimit {
    static func arm(seconds: Double) {
        let thread = Thread {
            Monotonic.sleep(seconds: seconds)
            FileHandle.standardError.write(Data("fleetbench: time limit of \(Int(seconds)) s reached; giving up\n".utf8))
            exit(3)
        }
        thread.name = "fleetbench time limit"
        thread.start()
    }
}
