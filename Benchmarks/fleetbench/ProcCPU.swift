import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU time (user + system) from a Linux `stat` file: a process's (`/proc/<pid>/stat`) or one
/// thread's (`/proc/self/task/<tid>/stat`).
enum ProcCPU {
    static func seconds(statFile path: String) -> Double? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), let afterName = text.lastIndex(of: ")") else {
            return nil
        }
        // Fields after the command name: state is field 3, utime 14 and stime 15.
        let fields = text[text.index(after: afterName)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU seconds per thread name of process `pid` (threads of one name summed), from
    /// `/proc/<pid>/task/*/stat` and `comm`: where a process's time goes, by thread.
    static func secondsByThread(pid: Int32) -> [String: Double] {
        let tasks = "/proc/\(pid)/task"
        guard let ids = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return [:] }
        var byName: [String: Double] = [:]
        for id in ids {
            guard let seconds = seconds(statFile: "\(tasks)/\(id)/stat"),
                let name = try? String(contentsOfFile: "\(tasks)/\(id)/comm", encoding: .utf8)
            else { continue }
            byName[name.trimmingCharacters(in: .whitespacesAndNewlines), default: 0] += seconds
        }
        return byName
    }

    /// The calling thread's id, to find its `stat` file later from another thread
    /// (`/proc/thread-self` links to `<pid>/task/<tid>`); 0 where there is no such link.
    static func currentThreadID() -> Int32 {
        var buffer = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard length > 0 else { return 0 }
        let link = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return link.split(separator: "/").last.flatMap { Int32($0) } ?? 0
    }
}
