import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A small tmpfs of a test's own, for a journal whose disk is to fill (docs/reliability.md):
/// filled and freed again without touching the machine's disks. Mounting needs root, which CI
/// and `Scripts/chaos` have; ``isAvailable`` says whether this process has it.
public final class ScratchFileSystem {
    public let path: String
    private var filler: String { path + "/filler" }
    private var mounted = true

    public static var isAvailable: Bool { geteuid() == 0 }

    public init(at path: String, megabytes: Int) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(megabytes)m,mode=0755") == 0 else {
            throw TestSupportError("cannot mount a tmpfs at \(path) (the journal-full fault needs root): \(String(cString: strerror(errno)))")
        }
    }

    deinit { try? unmount() }

    /// Bytes free, as a program that is not root sees them.
    public var freeBytes: UInt64 {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return 0 }
        return UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
    }

    /// Adds to a file until about `leaving` bytes are free (megabytes, then pages), or until the
    /// file system refuses: with 0, nothing is left for the journal's next write. Called again,
    /// it fills further.
    public func fill(leaving: UInt64 = 0) throws {
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard descriptor >= 0 else { throw TestSupportError("cannot create \(filler): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x5A, count: 1 << 20)
        for size in [1 << 20, 4096, 1] {
            while freeBytes >= leaving + UInt64(size) || leaving == 0 {
                // A short write is followed by the refusal; errno means something only after -1.
                let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, size) }
                if written > 0 { continue }
                guard written < 0, errno == ENOSPC else {
                    throw TestSupportError("filling \(path): \(written == 0 ? "nothing written" : String(cString: strerror(errno)))")
                }
                break
            }
        }
    }

    /// Removes what `fill` wrote.
    public func free() throws {
        guard unlink(filler) == 0 || errno == ENOENT else { throw TestSupportError("cannot remove \(filler): \(String(cString: strerror(errno)))") }
    }

    public func unmount() throws {
        guard mounted else { return }
        guard umount2(path, Int32(MNT_DETACH)) == 0 else { throw TestSupportError("cannot unmount \(path): \(String(cString: strerror(errno)))") }
        mounted = false
    }
}
