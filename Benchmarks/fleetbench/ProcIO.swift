import Foundation

/// What each thread of a process handed to write calls, from Linux's `/proc/<pid>/task/<tid>/io`
/// (`wchar`: bytes given to `write` and `pwrite`, to files, pipes and sockets alike; `syscw`: the
/// calls, failed ones too). The journal's writer writes the WAL, and the file when it finishes a
/// checkpoint itself, and also publishes what it committed: libmosquitto writes a byte to its
/// wake-up pipe for each message queued, so its calls count publishes, its bytes hardly. The
/// checkpointer writes the database file. The bytes move with how many steps share a transaction,
/// which the host's load moves too: about a tenth between runs of one build.
enum ProcIO {
    struct ThreadWrites: Sendable {
        var name: String
        var bytes: Int
        var calls: Int
    }

    /// Each thread of process `pid`, by thread id; empty where the files cannot be read.
    static func threads(pid: Int32) -> [Int32: ThreadWrites] {
        let tasks = "/proc/\(pid)/task"
        guard let ids = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return [:] }
        var threads: [Int32: ThreadWrites] = [:]
        for id in ids {
            guard let tid = Int32(id), let io = try? String(contentsOfFile: "\(tasks)/\(id)/io", encoding: .utf8),
                let name = try? String(contentsOfFile: "\(tasks)/\(id)/comm", encoding: .utf8)
            else { continue }
            var fields: [Substring: Int] = [:]
            for line in io.split(separator: "\n") {
                let parts = line.split(separator: ":")
                if parts.count == 2, let value = Int(parts[1].trimmingCharacters(in: .whitespaces)) { fields[parts[0]] = value }
            }
            guard let bytes = fields["wchar"], let calls = fields["syscw"] else { continue }
            threads[tid] = ThreadWrites(name: name.trimmingCharacters(in: .newlines), bytes: bytes, calls: calls)
        }
        return threads
    }

    /// What each thread name wrote between two `threads` readings, most bytes first; per thread
    /// id, as `ProcCPU.spentByName`. Threads that ended in between are not counted.
    static func writtenByName(from before: [Int32: ThreadWrites], to after: [Int32: ThreadWrites]) -> [ThreadWrites] {
        var byName: [String: ThreadWrites] = [:]
        for (tid, thread) in after {
            var sum = byName[thread.name] ?? ThreadWrites(name: thread.name, bytes: 0, calls: 0)
            sum.bytes += thread.bytes - (before[tid]?.bytes ?? 0)
            sum.calls += thread.calls - (before[tid]?.calls ?? 0)
            byName[thread.name] = sum
        }
        return byName.values.filter { $0.bytes > 0 }.sorted { $0.bytes > $1.bytes }
    }
}
