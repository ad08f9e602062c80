import CMosquitto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Process-wide libmosquitto setup and its error strings.
///
/// `mosquitto_lib_init` is not thread-safe and must run once before anything else.
/// A `static let` initialiser runs exactly once, lazily, under `swift_once`, so clients
/// created concurrently on any threads still initialise the library exactly once.
enum MosquittoLibrary {
    private static let initResult: Int32 = mosquitto_lib_init()

    static func ensureInitialized() throws(MQTTError) {
        guard initResult == MosquittoCode.success else {
            throw .library(function: "mosquitto_lib_init", code: initResult, reason: describe(initResult))
        }
    }

    /// The library version, e.g. "2.0.11" (for logs and bug reports).
    static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        _ = mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }

    /// A libmosquitto error code as text. `MOSQ_ERR_ERRNO` only says "look at errno",
    /// so callers pass the errno they captured right after the failing call.
    static func describe(_ code: Int32, errno savedErrno: Int32 = 0) -> String {
        if code == MosquittoCode.errno, savedErrno != 0 {
            return String(cString: strerror(savedErrno))
        }
        return String(cString: mosquitto_strerror(code))
    }

    /// A CONNACK return code as text ("Connection Refused: not authorised.").
    static func describeConnack(_ code: Int32) -> String {
        String(cString: mosquitto_connack_string(code))
    }

    /// libmosquitto writes to sockets with MSG_NOSIGNAL, but OpenSSL's socket BIO uses
    /// plain write(): a broker that drops a TLS connection would kill the process with
    /// SIGPIPE. Ignored once, and only by processes that open a TLS client.
    static func ignoreSIGPIPEForTLS() { _ = sigpipeIgnored }
    private static let sigpipeIgnored: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return true
    }()
}

/// libmosquitto's return codes as plain `Int32`, the type its functions return.
enum MosquittoCode {
    static let success = MOSQ_ERR_SUCCESS.rawValue
    static let noConnection = MOSQ_ERR_NO_CONN.rawValue
    static let connectionRefused = MOSQ_ERR_CONN_REFUSED.rawValue
    static let connectionLost = MOSQ_ERR_CONN_LOST.rawValue
    static let tls = MOSQ_ERR_TLS.rawValue
    static let tlsHandshake = MOSQ_ERR_TLS_HANDSHAKE.rawValue
    static let errno = MOSQ_ERR_ERRNO.rawValue
    static let addressLookup = MOSQ_ERR_EAI.rawValue
    static let lookup = MOSQ_ERR_LOOKUP.rawValue
    static let keepalive = MOSQ_ERR_KEEPALIVE.rawValue
    static let protocolError = MOSQ_ERR_PROTOCOL.rawValue
}
