import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU time (user + system) from a Linux `stat` file: a process's (`/proc/<pid>/stat`) or one
/// thread's (`/proc/self/task/<tid>/stat`).
enum ProcCPU {
    struct ThreadTime: Sendable {
        var name: String
        var seconds: Double
    }

    static func seconds(statFile path: String) -> Double? {
        stat(path)?.seconds
    }

    /// A whole process's.
    static func seconds(pid: Int32) -> Double? {
        seconds(statFile: "/proc/\(pid)/stat")
    }

    /// The command name (in parentheses, it may hold spaces) and the CPU time of a `stat` file.
    private static func stat(_ path: String) -> ThreadTime? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), let open = text.firstIndex(of: "("),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name: state is field 3, utime 14 and stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return ThreadTime(
            name: String(text[text.index(after: open)..<close]), seconds: (user + system) / Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// CPU seconds of each thread of process `pid`, by thread id, with its name
    /// (`/proc/<pid>/task/*/stat`).
    static func threads(pid: Int32) -> [Int32: ThreadTime] {
        let tasks = "/proc/\(pid)/task"
        guard let ids = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return [:] }
        var threads: [Int32: ThreadTime] = [:]
        for id in ids {
            guard let tid = Int32(id), let thread = stat("\(tasks)/\(id)/stat") else { continue }
            threads[tid] = thread
        }
        return threads
    }

    /// The CPU time each thread name used between two `threads` readings, largest first. Per
    /// thread id, so that a thread that ended meanwhile takes nothing from another of its name;
    /// what ended threads used in between is in `total` minus the sum, shown as "other".
    static func spentByName(
        from before: [Int32: ThreadTime], to after: [Int32: ThreadTime], total: Double?
    ) -> [(name: String, seconds: Double)] {
        var byName: [String: Double] = [:]
        for (tid, thread) in after {
            byName[thread.name, default: 0] += thread.seconds - (before[tid]?.seconds ?? 0)
        }
        var spent = byName.map { (name: $0.key, seconds: $0.value) }.sorted { $0.seconds > $1.seconds }
        if let total {
            let rest = total - spent.reduce(0) { $0 + $1.seconds }
            if rest > 0.005 { spent.append((name: "other", seconds: rest)) }
        }
        return spent
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
