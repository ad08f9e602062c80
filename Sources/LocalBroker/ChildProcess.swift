import Foundation
import Subprocess
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with swift-subprocess: empty signal mask, default signal handlers, its
/// own process group, and no descriptor of ours but the three it is given.
///
/// Foundation's `Process` passes on the spawning thread's signal mask, which on a Swift
/// concurrency or Dispatch thread blocks SIGTERM and SIGINT (mosquitto then ignores SIGTERM for
/// good), and a caller's ignored SIGINT/SIGTERM; Subprocess resets both. Its own process group
/// keeps a terminal's Ctrl-C away from it, so the owner can stop its children in order. Other
/// descriptors are closed because libmosquitto's sockets are not close-on-exec: a child holding
/// one would keep our connections open.
///
/// Our children live longer than any one call (a broker for a whole test, the service for a whole
/// demo) and are stopped from synchronous code, so the child runs inside Subprocess's `run` in a
/// task of its own whose closure stays open (`ChildLaunch`) until the child has ended. Until
/// then Subprocess does not reap it, so its pid is this child's and signals go to it by `kill`.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    private let exitStatus = Mutex<Int32?>(nil)
    private let launch: ChildLaunch

    /// `stdin`, `stdout` and `stderr` become the child's 0, 1 and 2; they stay the caller's.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment; `nil` passes on ours.
    ///   - workingDirectory: where the child starts; `nil`: ours.
    public init(
        executable: String, arguments: [String], environment: [String: String]? = nil, workingDirectory: String? = nil,
        stdin: Int32, stdout: Int32, stderr: Int32
    ) throws(LocalBrokerError) {
        var platform = PlatformOptions()
        platform.processGroupID = 0
        let configuration = Configuration(
            executable: .path(.init(executable)), arguments: Arguments(arguments),
            // As names and values, which Subprocess makes into C strings itself: entries built
            // here as bytes had no terminating NUL, and the child read past each value into
            // whatever followed (it once got `-32768es` for `-32768`).
            environment: environment.map { .custom(Self.variables($0)) } ?? .inherit,
            workingDirectory: workingDirectory.map { .init($0) }, platformOptions: platform)
        // Copies, which Subprocess closes once the child has them.
        let (input, output, error) = (Self.copy(stdin), Self.copy(stdout), Self.copy(stderr))
        let launch = ChildLaunch()
        Task(executorPreference: ChildProcessExecutor.shared) {
            do {
                _ = try await run(
                    configuration,
                    input: .fileDescriptor(.init(rawValue: input), closeAfterSpawningProcess: true),
                    output: .fileDescriptor(.init(rawValue: output), closeAfterSpawningProcess: true),
                    error: .fileDescriptor(.init(rawValue: error), closeAfterSpawningProcess: true)
                ) { execution in
                    launch.started(execution.processIdentifier.value)
                    await launch.hold()
                }
            } catch {
                launch.failed(.launchFailed(executable: executable, reason: "\(error)"))
            }
        }
        self.pid = try launch.outcome().get()
        self.launch = launch
    }

    private static func copy(_ descriptor: Int32) -> Int32 {
        fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
    }

    /// A child that still runs is left to run; Subprocess reaps it when it ends.
    deinit {
        launch.release()
    }

    /// `true` while the child runs; once it has ended, lets Subprocess reap it.
    private static func variables(_ environment: [String: String]) -> [Environment.Key: String] {
        Dictionary(
            environment.compactMap { name, value in Environment.Key(rawValue: name).map { ($0, value) } },
            uniquingKeysWith: { _, last in last })
    }

    public var isRunning: Bool {
        exitStatus.withLock { exitStatus in
            guard exitStatus == nil else { return false }
            guard let status = ChildExit.peek(pid) else { return true }
            exitStatus = status
            launch.release()
            return false
        }
    }

    /// The exit code, or 128 + signal for a child ended by a signal (-1 if it cannot be told);
    /// `nil` while running.
    public var terminationStatus: Int32? {
        guard !isRunning else { return nil }
        return exitStatus.withLock { $0 }
    }

    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Sends `signal`, waits up to `grace`, then SIGKILL; returns once the child has ended.
    public func end(with signal: Int32, grace: Duration = .seconds(5)) {
        send(signal)
        if !waitForExit(within: grace) {
            send(SIGKILL)
            _ = waitForExit(within: .seconds(5))
        }
    }

    /// `true` once the child has ended, `false` if it still runs after `timeout`.
    public func waitForExit(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            if ContinuousClock.now >= deadline { return false }
            usleep(2_000)
        }
        return true
    }
}
