import Foundation
import LocalBroker

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Debian's `chromium`, headless, with one page driven over the DevTools protocol
/// (`DevToolsPipe`): load a URL, evaluate JavaScript in it, move the mouse, take a screenshot.
/// For tests of the map that a real browser must prove, such as an alert appearing without a
/// reload.
///
/// The browser runs as a watched child (see LocalBroker's `WatchedChild`), the leader of its own
/// process group with every process it starts; `close()` ends the whole group, and the
/// watchdog does if the test process dies first.
public final class HeadlessChromium: Sendable {
    /// The browser, when installed (Debian's `chromium`; CI installs it).
    public static var executable: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":").map(String.init) + ["/usr/bin"] {
            for name in ["chromium", "chromium-browser"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
                return "\(directory)/\(name)"
            }
        }
        return nil
    }

    private let child: WatchedChild
    private let pipe: DevToolsPipe
    private let directory: String
    private let session: String

    /// Starts the browser with one blank page of `width` × `height` CSS pixels, and runs `body`
    /// with it; the browser and its processes are ended however `body` ends.
    public static func with<Result>(
        width: Int = 1280, height: Int = 800,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (HeadlessChromium) async throws -> Result
    ) async throws -> Result {
        let browser = try await launch(width: width, height: height)
        do {
            let result = try await body(browser)
            await browser.close()
            return result
        } catch {
            let problems = browser.problems
            await browser.close()
            if problems.isEmpty { throw error }
            throw TestSupportError("\(error)\nthe page reported:\n" + problems.joined(separator: "\n"))
        }
    }

    private init(child: WatchedChild, pipe: DevToolsPipe, directory: String, session: String) {
        self.child = child
        self.pipe = pipe
        self.directory = directory
        self.session = session
    }

    private static func launch(width: Int, height: Int) async throws -> HeadlessChromium {
        guard let executable else { throw TestSupportError("chromium is not installed") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-chromium-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let commandsPath = directory + "/commands"
        let answersPath = directory + "/answers"
        guard mkfifo(commandsPath, 0o600) == 0, mkfifo(answersPath, 0o600) == 0 else {
            try? FileManager.default.removeItem(atPath: directory)
            throw TestSupportError("mkfifo: \(String(cString: strerror(errno)))")
        }
        // Opened for reading and writing, a FIFO never blocks its opener: the browser's shell
        // opens its ends whenever it gets there.
        let commands = open(commandsPath, O_RDWR | O_CLOEXEC)
        let answers = open(answersPath, O_RDWR | O_CLOEXEC)
        let arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
            "--user-data-dir=\(directory)/profile", "--window-size=\(width),\(height)", "--force-device-scale-factor=1",
            "--hide-scrollbars", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--mute-audio",
            "about:blank",
        ]
        // The shell gives the browser the two FIFOs as descriptors 3 and 4, then becomes it.
        let script = #"commands=$1; answers=$2; shift 2; exec "$@" 3<"$commands" 4>"$answers""#
        let child: WatchedChild
        do {
            guard commands >= 0, answers >= 0 else { throw TestSupportError("cannot open the FIFOs") }
            child = try WatchedChild(
                executable: "/bin/sh", arguments: ["-c", script, "sh", commandsPath, answersPath, executable] + arguments,
                logPath: directory + "/chromium.log")
        } catch {
            for descriptor in [commands, answers] where descriptor >= 0 { closeDescriptor(descriptor) }
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        let pipe = DevToolsPipe(commands: commands, answers: answers, isAlive: { child.isRunning })
        do {
            let session = try await attachToPage(pipe, width: width, height: height)
            return HeadlessChromium(child: child, pipe: pipe, directory: directory, session: session)
        } catch {
            await end(child: child, pipe: pipe, directory: directory)
            let log = (try? String(contentsOfFile: directory + "/chromium.log", encoding: .utf8)) ?? ""
            throw TestSupportError("chromium did not start: \(error)\n\(log.suffix(2000))")
        }
    }

    /// The session of the browser's first page, with exceptions and console errors reported.
    private static func attachToPage(_ pipe: DevToolsPipe, width: Int, height: Int) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(20)
        var targetID: String?
        while targetID == nil {
            let targets = try decode(try await pipe.call("Target.getTargets"), as: Targets.self)
            targetID = targets.targetInfos.first { $0.type == "page" }?.targetId
            if targetID == nil {
                guard ContinuousClock.now < deadline else { throw TestSupportError("no page target") }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let attached = try decode(
            try await pipe.call("Target.attachToTarget", ["targetId": targetID!, "flatten": true]), as: Attached.self)
        let session = attached.sessionId
        _ = try await pipe.call("Page.enable", session: session)
        _ = try await pipe.call("Runtime.enable", session: session)
        _ = try await pipe.call(
            "Emulation.setDeviceMetricsOverride",
            ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false], session: session)
        return session
    }

    /// Exceptions thrown and errors logged by the page so far.
    public var problems: [String] { pipe.problems }

    /// Loads `url` and returns once its document is complete (scripts may still be fetching).
    public func load(_ url: String, timeout: Duration = .seconds(20)) async throws {
        _ = try await pipe.call("Page.navigate", ["url": url], session: session)
        guard try await waitFor("document.readyState === 'complete' && location.href !== 'about:blank'", timeout: timeout)
        else { throw TestSupportError("\(url) did not load within \(timeout)") }
    }

    /// The value of a JavaScript expression in the page (awaited when it is a promise), read
    /// through JSON into `T`.
    public func evaluate<T: Decodable>(_ expression: String, as type: T.Type = T.self) async throws -> T {
        let wrapped = "(async () => JSON.stringify(await (\(expression))))()"
        let answer = try Self.decode(
            try await pipe.call(
                "Runtime.evaluate", ["expression": wrapped, "awaitPromise": true, "returnByValue": true], session: session),
            as: Evaluated.self)
        if let exception = answer.exceptionDetails {
            throw TestSupportError("the page threw evaluating \(expression): \(exception.exception?.description ?? exception.text)")
        }
        guard let json = answer.result.value else {
            throw TestSupportError("\(expression) has no JSON value")
        }
        return try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    /// Polls a boolean expression every 50 ms; whether it held within `timeout`.
    public func waitFor(_ expression: String, timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if try await evaluate("Boolean(\(expression))", as: Bool.self) { return true }
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The mouse pointer moves to (`x`, `y`) in CSS pixels of the page.
    public func moveMouse(x: Double, y: Double) async throws {
        _ = try await pipe.call(
            "Input.dispatchMouseEvent", ["type": "mouseMoved", "x": x, "y": y, "button": "none"], session: session)
    }

    /// Any other DevTools command to the page (a profile, a trace): its result, as JSON.
    public func send(_ method: String, _ parameters: [String: any Sendable] = [:], timeout: Duration = .seconds(30)) async throws -> Data {
        try await pipe.call(method, parameters, session: session, timeout: timeout)
    }

    /// A PNG of what the page shows, written to `path` (its folder created).
    public func screenshot(to path: String) async throws {
        let shot = try Self.decode(try await pipe.call("Page.captureScreenshot", ["format": "png"], session: session), as: Screenshot.self)
        guard let png = Data(base64Encoded: shot.data) else { throw TestSupportError("the screenshot is not base64") }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try png.write(to: URL(fileURLWithPath: path))
    }

    /// Closes the browser and ends every process of its group; removes its profile.
    public func close() async {
        await Self.end(child: child, pipe: pipe, directory: directory)
    }

    private static func end(child: WatchedChild, pipe: DevToolsPipe, directory: String) async {
        if child.isRunning {
            // The browser answers, then exits with its renderers and helpers.
            _ = try? await pipe.call("Browser.close", timeout: .seconds(3))
            _ = await child.waitForExit(within: .seconds(5))
        }
        // Whatever of its group is left.
        kill(-child.pid, SIGKILL)
        await child.stop(with: SIGKILL, grace: .seconds(2))
        pipe.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func decode<T: Decodable>(_ data: Data, as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: data)
    }

    private struct Targets: Decodable {
        struct Target: Decodable {
            var targetId: String
            var type: String
        }
        var targetInfos: [Target]
    }

    private struct Attached: Decodable {
        var sessionId: String
    }

    private struct Evaluated: Decodable {
        struct Value: Decodable {
            var value: String?
        }
        struct Exception: Decodable {
            struct Object: Decodable {
                var description: String?
            }
            var text: String
            var exception: Object?
        }
        var result: Value
        var exceptionDetails: Exception?
    }

    private struct Screenshot: Decodable {
        var data: String
    }
}

/// `close(2)`, out of reach of the method of the same name.
private func closeDescriptor(_ descriptor: Int32) {
    close(descriptor)
}
