import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The demo's lines for people: alerts and the summary on standard output, notes on standard
/// error. Each line goes out in one `write`, so that alert lines from the MQTT thread and log
/// lines never interleave mid-line; a closed pipe (`| head`) is ignored rather than fatal, so the
/// demo still gets to stop its children.
enum DemoOutput {
    static func line(_ text: String) {
        write(STDOUT_FILENO, text + "\n")
    }

    static func note(_ text: String) {
        write(STDERR_FILENO, text + "\n")
    }

    private static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                Darwin.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
