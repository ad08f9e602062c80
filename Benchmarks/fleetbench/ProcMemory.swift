import Foundation

/// A process's resident memory, from Linux's /proc.
enum ProcMemory {
    /// VmRSS from /proc/<pid>/status, in bytes.
    static func residentBytes(pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) }
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }
}
