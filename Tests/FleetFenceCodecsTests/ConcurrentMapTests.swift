import Foundation
import Synchronization
import Testing

@testable import FleetFenceCodecs

@Suite("ConcurrentMap")
struct ConcurrentMapTests {
    /// Around the chunk boundaries, where an off-by-one would drop, repeat or misplace an element.
    @Test(arguments: [0, 1, 6, 7, 8, 13, 14, 15, 1_000])
    func everyElementOnceAndInOrder(count: Int) {
        let calls = Atomic(0)
        let input = (0..<count).map { "e\($0)" }
        let output = input.concurrentMap(chunkSize: 7) { element in
            calls.add(1, ordering: .relaxed)
            return element + "!"
        }
        #expect(output == input.map { $0 + "!" })
        #expect(calls.load(ordering: .relaxed) == count)
    }

    /// A slice's indices start where the slice does, not at 0.
    @Test func aSliceMapsFromItsOwnStart() {
        let all = (0..<100).map { "e\($0)" }
        #expect(all[13..<60].concurrentMap(chunkSize: 7) { $0 } == Array(all[13..<60]))
    }

    /// Chunks are taken by more than one thread (``threadsTakingChunks()``).
    @Test(.enabled(if: usableCores() > 1, "one usable core"))
    func chunksRunOnMoreThanOneThreadWhenThereAreCores() {
        #expect(Self.threadsTakingChunks() >= 2)
    }

    /// The same from a task while every other thread of Swift's pool is held, as the service's
    /// start-up tasks hold them, and at once: `DispatchQueue.concurrentPerform` ran the chunks on
    /// the calling thread until libdispatch added a thread to its pool (0.93 s here, the whole of
    /// a fresh start's decoding).
    @Test(.enabled(if: usableCores() > 1, "one usable core"))
    func chunksRunOnMoreThanOneThreadFromATaskWhileThePoolIsBusy() async {
        let released = Flag()
        let threads = await withTaskGroup(of: Int?.self) { group in
            for _ in 1..<ProcessInfo.processInfo.activeProcessorCount {
                group.addTask {
                    while !released.isSet { usleep(1_000) }
                    return nil
                }
            }
            group.addTask {
                // Let the others take their threads first.
                usleep(100_000)
                defer { released.set() }
                return Self.threadsTakingChunks(within: .milliseconds(500))
            }
            var threads = 0
            for await count in group { threads = max(threads, count ?? 0) }
            return threads
        }
        #expect(threads >= 2)
    }

    /// How many threads took the chunks of a map whose every chunk waits (up to a shared deadline)
    /// until a second thread has taken one: done one after another, it sees a single thread.
    private static func threadsTakingChunks(within wait: Duration = .seconds(5)) -> Int {
        let threads = Mutex(Set<pthread_t>())
        let deadline = ContinuousClock.now + wait
        _ = Array(0..<8).concurrentMap(chunkSize: 1) { element in
            threads.withLock { _ = $0.insert(pthread_self()) }
            while threads.withLock({ $0.count }) < 2, ContinuousClock.now < deadline { usleep(1_000) }
            return element
        }
        return threads.withLock { $0.count }
    }
}

private final class Flag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// The cores this process may run on: its affinity mask (Linux), which libdispatch honours and
/// `activeProcessorCount` does not (`taskset -c 0` leaves that at the machine's count).
private func usableCores() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else {
        return ProcessInfo.processInfo.activeProcessorCount
    }
    return line.dropFirst("Cpus_allowed:".count).reduce(0) { count, digit in
        count + (digit.hexDigitValue ?? 0).nonzeroBitCount
    }
}
