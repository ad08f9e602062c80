/// Why a TLS connection failed, in words an operator can act on. libmosquitto reports every
/// verification failure alike; a second handshake without the host-name check tells a
/// certificate for another name (it then succeeds) from one no trusted CA signed (it fails too).
enum TLSDiagnosis {
    static func explain(_ options: MQTTOptions, url: MQTTURL, timeout: Duration = .seconds(3)) async -> String {
        let trust = options.caFile.map { "the CA file \($0)" } ?? "the system's trusted CAs"
        var probe = MQTTOptions(url: url, caFile: options.caFile)
        probe.username = options.username
        probe.password = options.password
        probe.passwordSource = options.passwordSource
        probe.skipsHostNameCheck = true
        guard let client = try? MQTTClient(options: probe, logger: .init(label: "fleetfence.mqtt.tls-diagnosis")) else {
            return "the TLS handshake failed"
        }
        do {
            try await client.connect(timeout: timeout)
            await client.disconnect()
            return "the broker's certificate is signed by \(trust) but not issued for the host name \(url.host)"
        } catch MQTTError.refused {
            // Refused after a handshake that succeeded: the handshake itself was fine without the
            // host-name check.
            return "the broker's certificate is signed by \(trust) but not issued for the host name \(url.host)"
        } catch {
            return "the broker's certificate is not signed by \(trust) (or the broker does not speak TLS)"
        }
    }
}
