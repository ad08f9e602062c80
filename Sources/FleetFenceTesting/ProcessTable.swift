import Foundation

/// What runs on this machine, from Linux's /proc: for tests that check a command left nothing
/// behind.
public enum ProcessTable {
    /// A zombie still answers `kill(pid, 0)`: only a process that runs counts as alive.
    public static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !(stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? false)
    }

    /// Every process's command line, arguments joined by spaces.
    public static func commandLines() -> [(pid: Int32, line: String)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = Int32(entry),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"), !data.isEmpty
            else { return nil }
            return (pid, String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self))
        }
    }
}
