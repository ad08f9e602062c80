import Dispatch

/// Where the tasks that run our children (`ChildProcess`) run: a queue of their own, not Swift
/// concurrency's few shared threads.
///
/// Starting and stopping a child is synchronous for its callers (`LocalMosquitto.start()`,
/// `stop()` in a `defer`, the demo's teardown), which often call from those shared threads. If the
/// task that spawns the child needed one of them too, a few such callers at once (tests run in
/// parallel on two cores) would wait for each other for ever.
final class ChildProcessExecutor: TaskExecutor {
    static let shared = ChildProcessExecutor()

    private let queue = DispatchQueue(label: "LocalBroker.children")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
