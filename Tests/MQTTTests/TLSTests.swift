import FleetFenceTesting
import Foundation
import Synchronization
import Testing

@testable import MQTT

/// mqtts:// against a broker with a certificate from a throw-away CA.
@Suite(.timeLimit(.minutes(1)), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
struct TLSTests {
    @Test func connectsWithTheCAFileAndFailsWithoutIt() async throws {
        try await withTemporaryDirectory { directory in
            let (broker, port) = try startTLSBroker(in: directory)
            defer { broker.stop() }

            let url = try MQTTURL(parsing: "mqtts://127.0.0.1:\(port)")
            let trusted = try await connectAndPublish(url, trusting: directory, timeout: .seconds(5))

            // Reconnects over TLS after the broker was down for a while.
            broker.stop()
            #expect(await eventually { !trusted.isConnected })
            try await Task.sleep(for: .seconds(1)) // let a few reconnect attempts fail
            try broker.restart()
            #expect(await eventually { trusted.isConnected })
            await trusted.disconnect()

            // The system trust store does not know the throw-away CA.
            let untrusting = try MQTTClient(options: MQTTOptions(url: url), logger: testLogger())
            await #expect {
                try await untrusting.connect(timeout: .seconds(5))
            } throws: { error in
                guard case .tls? = error as? MQTTError else { return false }
                return true
            }

            // Plain MQTT against the TLS listener fails too, with a hint.
            let plain = try MQTTClient(options: MQTTOptions(url: MQTTURL(host: "127.0.0.1", port: port)), logger: testLogger())
            await #expect(throws: MQTTError.self) { try await plain.connect(timeout: .seconds(5)) }
        }
    }

    /// Each way TLS goes wrong says which it is: another CA, another host name, no CA file.
    @Test func tlsFailuresSayWhatIsWrong() async throws {
        try await withTemporaryDirectory { directory in
            let (broker, port) = try startTLSBroker(in: directory)
            defer { broker.stop() }
            let url = try MQTTURL(parsing: "mqtts://127.0.0.1:\(port)")

            let other = directory + "/other"
            try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
            try makeCertificates(in: other)
            let wrongCA = try await connectionError(MQTTOptions(url: url, caFile: other + "/ca.crt"))
            #expect(wrongCA.contains("not signed by the CA file \(other)/ca.crt"), "\(wrongCA)")

            let (renamed, renamedPort) = try startTLSBroker(in: directory + "/renamed", names: "DNS:elsewhere.example")
            defer { renamed.stop() }
            let wrongName = try await connectionError(
                MQTTOptions(url: MQTTURL(tls: true, host: "127.0.0.1", port: renamedPort), caFile: directory + "/renamed/ca.crt"))
            #expect(wrongName.contains("not issued for the host name 127.0.0.1"), "\(wrongName)")

            #expect {
                _ = try MQTTClient(options: MQTTOptions(url: url, caFile: directory + "/absent.crt"), logger: testLogger())
            } throws: { error in
                "\(error)".contains("does not exist or cannot be read")
            }
        }
    }

    private func connectionError(_ options: MQTTOptions) async throws -> String {
        let client = try MQTTClient(options: options, logger: testLogger())
        do {
            try await client.connect(timeout: .seconds(5))
            await client.disconnect()
            return "connected"
        } catch {
            return "\(error)"
        }
    }

    /// Over a real network the TLS handshake starts before TCP has connected and waits for the
    /// socket to turn writable; libmosquitto goes on with it only from its read call. Here the
    /// first SYN is dropped (a full listen queue), so the connect completes on a retransmission.
    @Test func aHandshakeThatStartsBeforeTCPConnectsCompletes() async throws {
        try await withTemporaryDirectory { directory in
            let (broker, port) = try startTLSBroker(in: directory)
            defer { broker.stop() }
            let proxy = try SlowAcceptProxy(upstreamPort: port, delay: .milliseconds(1_500))
            defer { proxy.stop() }

            let url = try MQTTURL(parsing: "mqtts://127.0.0.1:\(proxy.port)")
            let client = try await connectAndPublish(url, trusting: directory, timeout: .seconds(15))
            await client.disconnect()
        }
    }

    /// A client that trusts the throw-away CA in `directory`, connected within `timeout`, with one
    /// QoS 1 publish sent and acknowledged over TLS.
    /// A burst several drains long over TLS, then silence: the last of it arrives without waiting
    /// for later traffic (a drain cut at its cap reads again at once, since TLS may hold records
    /// already taken from the socket).
    @Test func aBurstLongerThanATurnArrivesWholeOverTLS() async throws {
        try await withTemporaryDirectory { directory in
            let (broker, port) = try startTLSBroker(in: directory)
            defer { broker.stop() }
            let url = try MQTTURL(parsing: "mqtts://127.0.0.1:\(port)")
            let received = Mutex(0)
            let subscriber = try MQTTClient(options: MQTTOptions(url: url, caFile: "\(directory)/ca.crt"), logger: testLogger())
            subscriber.onMessage { _ in received.withLock { $0 += 1 } }
            subscriber.subscribe(["burst/#"], qos: 0)
            try await subscriber.connect(timeout: .seconds(5))
            #expect(await subscriber.waitForSubscriptions(timeout: .seconds(5)))
            let publisher = try await connectAndPublish(url, trusting: directory, timeout: .seconds(5))
            let count = LoopContext.packetsPerTurn * 3 + 5
            for index in 0..<count { publisher.publish(topic: "burst/\(index)", payload: "\(index)", qos: 0) }
            #expect(await eventually(timeout: .seconds(5)) { received.withLock { $0 } == count })
            await publisher.disconnect()
            await subscriber.disconnect()
        }
    }

    private func connectAndPublish(_ url: MQTTURL, trusting directory: String, timeout: Duration) async throws -> MQTTClient {
        let client = try MQTTClient(options: MQTTOptions(url: url, caFile: "\(directory)/ca.crt"), logger: testLogger())
        try await client.connect(timeout: timeout)
        #expect(client.publish(topic: "tls/ok", payload: "x", qos: 1) == .sent)
        #expect(await client.waitForPublishes(timeout: .seconds(5)))
        return client
    }

    /// A mosquitto with a TLS listener whose certificate comes from a throw-away CA in `directory`.
    private func startTLSBroker(
        in directory: String, names: String = "DNS:localhost,IP:127.0.0.1"
    ) throws -> (LocalMosquitto, port: Int) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try makeCertificates(in: directory, names: names)
        let port = try LocalMosquitto.freeLoopbackPort()
        let listener = """
            listener \(port) 127.0.0.1
            cafile \(directory)/ca.crt
            certfile \(directory)/server.crt
            keyfile \(directory)/server.key
            """
        return (try LocalMosquitto.start(extraConfig: listener, port: port), port)
    }

    private func makeCertificates(in directory: String, names: String = "DNS:localhost,IP:127.0.0.1") throws {
        let commands: [[String]] = [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=FleetFence test CA",
             "-keyout", "\(directory)/ca.key", "-out", "\(directory)/ca.crt"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
             "-keyout", "\(directory)/server.key", "-out", "\(directory)/server.csr"],
            ["x509", "-req", "-days", "1", "-in", "\(directory)/server.csr", "-CA", "\(directory)/ca.crt",
             "-CAkey", "\(directory)/ca.key", "-CAcreateserial", "-out", "\(directory)/server.crt",
             "-extfile", "\(directory)/san.ext"],
        ]
        try "subjectAltName=\(names)\n".write(toFile: "\(directory)/san.ext", atomically: true, encoding: .utf8)
        for arguments in commands {
            let result = try runProcess("openssl", arguments)
            guard result.status == 0 else { throw TestSupportError("openssl \(arguments[0]) failed: \(result.errorOutput)") }
        }
    }
}
