import CMosquitto
import Foundation

/// Owns one `struct mosquitto *`, configured from `MQTTOptions`, destroyed with the owner.
///
/// `@unchecked Sendable` because the pointer itself never changes and libmosquitto guards
/// its state with its own mutexes once `mosquitto_threaded_set(true)` is on: that is the
/// mode libmosquitto documents for applications that call it from several threads. The
/// only call that is not thread-safe, `mosquitto_destroy`, runs in `deinit`, when no
/// other thread can hold a reference any more.
final class MosquittoHandle: @unchecked Sendable {
    let raw: OpaquePointer

    init(options: MQTTOptions) throws(MQTTError) {
        try MosquittoLibrary.ensureInitialized()
        guard let raw = mosquitto_new(options.clientID, options.cleanSession, nil) else {
            throw .library(function: "mosquitto_new", code: MOSQ_ERR_NOMEM.rawValue,
                           reason: "cannot create a client (out of memory or invalid client id)")
        }
        self.raw = raw
        try configure(options)
    }

    deinit {
        mosquitto_destroy(raw)
    }

    private func configure(_ options: MQTTOptions) throws(MQTTError) {
        try check("mosquitto_threaded_set", mosquitto_threaded_set(raw, true))
        // 3.1.1: a persistent session survives a disconnect without a Session Expiry
        // Interval, which MQTT 5 would need (mosquitto 2 drops a v5 session on disconnect without one).
        try check("MOSQ_OPT_PROTOCOL_VERSION", mosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311))
        try check("MOSQ_OPT_SEND_MAXIMUM", mosquitto_int_option(raw, MOSQ_OPT_SEND_MAXIMUM, options.maxInflight))
        // Without it, a small packet written while another is unacknowledged waits for the peer's
        // delayed ACK (Nagle): alerts arrived ~25 ms late on an otherwise idle loopback.
        try check("MOSQ_OPT_TCP_NODELAY", mosquitto_int_option(raw, MOSQ_OPT_TCP_NODELAY, 1))

        if let username = options.username {
            try check("mosquitto_username_pw_set", mosquitto_username_pw_set(raw, username, options.password))
        }
        if let will = options.will {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(raw, will.topic, Int32(bytes.count), bytes.baseAddress, will.qos, will.retain)
            }
            guard rc == MosquittoCode.success else {
                throw .invalidOptions("will rejected by libmosquitto: \(MosquittoLibrary.describe(rc)) (topic '\(will.topic)')")
            }
        }
        if options.url.tls {
            MosquittoLibrary.ignoreSIGPIPEForTLS()
            if let caFile = options.caFile {
                guard FileManager.default.isReadableFile(atPath: caFile) else {
                    throw .invalidOptions("the CA file '\(caFile)' does not exist or cannot be read")
                }
                let rc = mosquitto_tls_set(raw, caFile, nil, nil, nil, nil)
                guard rc == MosquittoCode.success else {
                    throw .invalidOptions("cannot use CA file '\(caFile)': \(MosquittoLibrary.describe(rc))")
                }
            } else {
                try check("MOSQ_OPT_TLS_USE_OS_CERTS", mosquitto_int_option(raw, MOSQ_OPT_TLS_USE_OS_CERTS, 1))
            }
            if options.skipsHostNameCheck { try check("mosquitto_tls_insecure_set", mosquitto_tls_insecure_set(raw, true)) }
        }
    }

    private func check(_ function: String, _ rc: Int32) throws(MQTTError) {
        guard rc == MosquittoCode.success else {
            throw .library(function: function, code: rc, reason: MosquittoLibrary.describe(rc))
        }
    }
}
