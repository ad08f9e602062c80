#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic nanoseconds, cheap enough to call per message (vDSO), comparable across threads.
enum Monotonic {
    static func nanos() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    static func seconds(from start: UInt64, to end: UInt64) -> Double {
        end > start ? Double(end - start) / 1e9 : 0
    }

    static func since(_ start: UInt64) -> Double {
        seconds(from: start, to: nanos())
    }

    /// Sleeps the calling thread (never spins: on two cores a spinning bench steals the broker's CPU).
    static func sleep(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }

    static func sleep(seconds: Double) {
        sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
    }
}
